package io.etcdoperator.operator.observe;

/**
 * One member's data claim.
 *
 * @param name claim name
 * @param ordinal StatefulSet ordinal it belongs to
 * @param terminating deletion requested
 */
public record ClaimView(String name, int ordinal, boolean terminating) {}
