package io.etcdoperator.testing.robustness;

/**
 * One key as etcd returns it: in a range, a watch event or a previous value.
 *
 * @param key the key
 * @param value the value in the history's compact form ({@link Values#compact})
 * @param createRevision the revision that created the key
 * @param modRevision the revision of its last change
 * @param version how many times it was put since it was created
 * @param lease the lease it is attached to, 0 for none
 */
public record Kv(
    String key, String value, long createRevision, long modRevision, long version, long lease) {

  @Override
  public String toString() {
    return key
        + "="
        + value
        + "@"
        + modRevision
        + "(c"
        + createRevision
        + ",v"
        + version
        + (lease == 0 ? "" : ",lease " + Long.toHexString(lease))
        + ")";
  }
}
