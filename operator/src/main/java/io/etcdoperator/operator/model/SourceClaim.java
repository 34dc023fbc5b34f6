package io.etcdoperator.operator.model;

import java.util.List;
import java.util.Set;

/**
 * The claim {@code spec.bootstrap.restore.source.pvc.claimName} names, as the API server shows it:
 * every member's restore init container mounts it, read-only, so it must exist and, for more than
 * one member, be mountable on several nodes at once.
 *
 * @param name the claim's name
 * @param found whether it exists
 * @param accessModes its spec.accessModes
 */
public record SourceClaim(String name, boolean found, List<String> accessModes) {
  private static final Set<String> ONE_NODE = Set.of("ReadWriteOnce", "ReadWriteOncePod");

  public SourceClaim {
    accessModes = List.copyOf(accessModes);
  }

  /**
   * Whether only one node (or one pod) may mount it: every access mode it has is ReadWriteOnce or
   * ReadWriteOncePod.
   */
  public boolean oneNodeOnly() {
    return !accessModes.isEmpty() && ONE_NODE.containsAll(accessModes);
  }
}
