package io.etcdoperator.operator.plan;

/** etcd IDs as etcdctl prints them. */
public final class Hex {
  private Hex() {}

  public static String id(long id) {
    return Long.toHexString(id);
  }
}
