package io.etcdoperator.sandbox.api.auth;

/** The messages of a real API server's 401 and 403 answers. */
public final class Forbidden {
  private Forbidden() {}

  /**
   * What the authorizer says the user cannot do: {@code User "u" cannot create resource "pods" in
   * API group "" in the namespace "default"} (or {@code at the cluster scope}; {@code cannot get
   * path "/x"} for a non-resource request).
   */
  public static String reason(Identity user, RequestInfo r) {
    if (!r.resourceRequest()) {
      return "User \"" + user.name() + "\" cannot " + r.verb() + " path \"" + r.path() + "\"";
    }
    String where =
        r.namespace().isEmpty()
            ? " at the cluster scope"
            : " in the namespace \"" + r.namespace() + "\"";
    return "User \""
        + user.name()
        + "\" cannot "
        + r.verb()
        + " resource \""
        + r.resourceWithSubresource()
        + "\" in API group \""
        + r.group()
        + "\""
        + where;
  }

  /**
   * The whole message of a 403: {@code pods "test-0" is forbidden: <reason>}, the resource
   * qualified by its group ({@code statefulsets.apps}), the name left out when the request names no
   * object (a create, a list).
   */
  public static String message(RequestInfo r, String reason) {
    if (!r.resourceRequest()) {
      return "forbidden: " + reason;
    }
    String qualified = r.group().isEmpty() ? r.resource() : r.resource() + "." + r.group();
    return qualified
        + (r.name().isEmpty() ? "" : " \"" + r.name() + "\"")
        + " is forbidden: "
        + reason;
  }
}
