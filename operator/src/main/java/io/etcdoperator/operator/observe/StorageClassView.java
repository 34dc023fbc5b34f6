package io.etcdoperator.operator.observe;

import java.util.Optional;

/**
 * The StorageClass of the members' claims, as far as a volume expansion needs it: read only while
 * the spec asks for claims larger than they are.
 *
 * @param name the class's name
 * @param allowsExpansion its {@code allowVolumeExpansion}; empty when the operator could not read
 *     the class (it does not exist, or the operator may not read StorageClasses, as when it watches
 *     its own namespace only)
 * @param problem why it could not be read, else empty
 */
public record StorageClassView(String name, Optional<Boolean> allowsExpansion, String problem) {}
