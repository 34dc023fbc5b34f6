package io.etcdoperator.operator.observe;

/**
 * What the planner needs of the StatefulSet.
 *
 * @param replicas spec.replicas
 * @param podTemplateHash the pod template hash the operator stamped on its template, or null
 * @param persistentStorage whether members keep data in claims (else emptyDir)
 */
public record StatefulSetView(int replicas, String podTemplateHash, boolean persistentStorage) {}
