package io.etcdoperator.operator.observe;

/**
 * What the planner needs of the StatefulSet.
 *
 * @param replicas spec.replicas
 * @param podTemplateHash the pod template hash the operator stamped on its template, or null
 * @param persistentStorage whether members keep data in claims (else emptyDir)
 * @param claimBytes the storage its data claim template requests, in bytes (0: none): what a member
 *     added later gets, and what a volume expansion must recreate the StatefulSet to change (the
 *     claim template cannot be updated)
 * @param terminating its deletion was requested (a recreation for a volume expansion under way)
 */
public record StatefulSetView(
    int replicas,
    String podTemplateHash,
    boolean persistentStorage,
    long claimBytes,
    boolean terminating) {
  public StatefulSetView(int replicas, String podTemplateHash, boolean persistentStorage) {
    this(replicas, podTemplateHash, persistentStorage, 0, false);
  }
}
