package io.etcdoperator.sandbox.api.auth;

import java.util.List;

/**
 * Who sent a request, as the API server's authenticator names it.
 *
 * @param name the user name, e.g. {@code system:serviceaccount:etcd-operator:etcd-operator}
 * @param groups the user's groups ({@code system:authenticated} among them)
 * @param admin a member of {@code system:masters}: every request is allowed without RBAC
 */
public record Identity(String name, List<String> groups, boolean admin) {
  public Identity {
    groups = List.copyOf(groups);
  }

  /** The sandbox's administrator: its controllers, its kubelet, kubectl with its kubeconfig. */
  public static Identity administrator() {
    return new Identity("sandbox-admin", List.of("system:masters", "system:authenticated"), true);
  }

  /** A ServiceAccount, with the groups a real API server gives its tokens. */
  public static Identity serviceAccount(String namespace, String name) {
    return new Identity(
        "system:serviceaccount:" + namespace + ":" + name,
        List.of(
            "system:serviceaccounts",
            "system:serviceaccounts:" + namespace,
            "system:authenticated"),
        false);
  }
}
