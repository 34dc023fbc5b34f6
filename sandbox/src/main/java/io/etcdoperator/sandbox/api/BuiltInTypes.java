package io.etcdoperator.sandbox.api;

import java.util.List;

/** The built-in Kubernetes kinds the sandbox serves: what the operator and kubectl use. */
public final class BuiltInTypes {
  private static final String RBAC = "rbac.authorization.k8s.io";
  private static final ResourceType.Scale REPLICAS =
      new ResourceType.Scale(".spec.replicas", ".status.replicas", ".status.selector");

  /** Every built-in kind, core group first. */
  public static final List<ResourceType> ALL =
      List.of(
          ResourceType.builtIn("", "pods", "Pod", true, true, null, "po"),
          ResourceType.builtIn("", "services", "Service", true, true, null, "svc"),
          ResourceType.builtIn("", "endpoints", "Endpoints", true, false, null, "ep"),
          ResourceType.builtIn("", "configmaps", "ConfigMap", true, false, null, "cm"),
          ResourceType.builtIn("", "secrets", "Secret", true, false, null),
          ResourceType.builtIn(
              "", "persistentvolumeclaims", "PersistentVolumeClaim", true, true, null, "pvc"),
          ResourceType.builtIn("", "namespaces", "Namespace", false, true, null, "ns"),
          ResourceType.builtIn("", "nodes", "Node", false, true, null, "no"),
          ResourceType.builtIn(
              "", "persistentvolumes", "PersistentVolume", false, true, null, "pv"),
          ResourceType.builtIn("", "events", "Event", true, false, null, "ev"),
          ResourceType.builtIn("", "serviceaccounts", "ServiceAccount", true, false, null, "sa"),
          ResourceType.builtIn("apps", "statefulsets", "StatefulSet", true, true, REPLICAS, "sts"),
          ResourceType.builtIn("apps", "deployments", "Deployment", true, true, REPLICAS, "deploy"),
          ResourceType.builtIn("apps", "replicasets", "ReplicaSet", true, true, REPLICAS, "rs"),
          ResourceType.builtIn(
              "policy", "poddisruptionbudgets", "PodDisruptionBudget", true, true, null, "pdb"),
          ResourceType.builtIn("coordination.k8s.io", "leases", "Lease", true, false, null),
          ResourceType.builtIn(
              "storage.k8s.io", "storageclasses", "StorageClass", false, false, null, "sc"),
          ResourceType.builtIn("events.k8s.io", "events", "Event", true, false, null, "ev"),
          ResourceType.builtIn(RBAC, "roles", "Role", true, false, null),
          ResourceType.builtIn(RBAC, "rolebindings", "RoleBinding", true, false, null),
          ResourceType.builtIn(RBAC, "clusterroles", "ClusterRole", false, false, null),
          ResourceType.builtIn(
              RBAC, "clusterrolebindings", "ClusterRoleBinding", false, false, null),
          ResourceType.builtIn(
              "apiextensions.k8s.io",
              "customresourcedefinitions",
              "CustomResourceDefinition",
              false,
              true,
              null,
              "crd",
              "crds"));

  private BuiltInTypes() {}
}
