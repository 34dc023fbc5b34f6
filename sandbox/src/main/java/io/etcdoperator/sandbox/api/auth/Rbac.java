package io.etcdoperator.sandbox.api.auth;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The RBAC authorizer of a real API server, over a set of Roles, ClusterRoles, RoleBindings and
 * ClusterRoleBindings.
 *
 * <p>A request is allowed when some binding whose subjects include the user (by name, by group, or
 * as a ServiceAccount) refers to a role with a rule that matches it: the rule's verbs include the
 * verb (or {@code *}); for a resource request, its apiGroups include the group and its resources
 * include {@code resource}, {@code resource/subresource}, {@code *} or {@code * /subresource}, and
 * its resourceNames are empty or include the object's name (so a create, which names nothing, never
 * matches a rule with resourceNames); for a non-resource request, its nonResourceURLs include the
 * path (a trailing {@code *} matches a prefix). A ClusterRoleBinding grants its ClusterRole
 * everywhere, cluster scope included; a RoleBinding grants its Role or ClusterRole only in the
 * binding's namespace. Nothing is ever denied explicitly: what no rule allows is forbidden.
 *
 * <p>As on a real cluster every authenticated user may read discovery, {@code /version} and {@code
 * /openapi} (the default {@code system:discovery} and {@code system:public-info-viewer} roles), and
 * administrators ({@code system:masters}) are allowed everything.
 */
public final class Rbac {
  private static final List<String> DISCOVERY =
      List.of(
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
          "/openapi",
          "/openapi/*",
          "/version",
          "/version/",
          "/healthz",
          "/livez",
          "/readyz");

  /**
   * What the default {@code system:basic-user} role lets every authenticated user do: ask what it
   * may do.
   */
  private static final List<PolicyRule> BASIC_USER =
      List.of(
          new PolicyRuleBuilder()
              .withApiGroups("authorization.k8s.io")
              .withResources("selfsubjectaccessreviews", "selfsubjectrulesreviews")
              .withVerbs("create")
              .build());

  private final List<Role> roles;
  private final List<ClusterRole> clusterRoles;
  private final List<RoleBinding> roleBindings;
  private final List<ClusterRoleBinding> clusterRoleBindings;

  public Rbac(
      Collection<Role> roles,
      Collection<ClusterRole> clusterRoles,
      Collection<RoleBinding> roleBindings,
      Collection<ClusterRoleBinding> clusterRoleBindings) {
    this.roles = List.copyOf(roles);
    this.clusterRoles = List.copyOf(clusterRoles);
    this.roleBindings = List.copyOf(roleBindings);
    this.clusterRoleBindings = List.copyOf(clusterRoleBindings);
  }

  /** The RBAC objects among these (others are ignored). */
  public static Rbac of(Collection<? extends HasMetadata> objects) {
    List<Role> r = new ArrayList<>();
    List<ClusterRole> cr = new ArrayList<>();
    List<RoleBinding> rb = new ArrayList<>();
    List<ClusterRoleBinding> crb = new ArrayList<>();
    for (HasMetadata o : objects) {
      if (o instanceof Role x) {
        r.add(x);
      } else if (o instanceof ClusterRole x) {
        cr.add(x);
      } else if (o instanceof RoleBinding x) {
        rb.add(x);
      } else if (o instanceof ClusterRoleBinding x) {
        crb.add(x);
      }
    }
    return new Rbac(r, cr, rb, crb);
  }

  /** Whether the user may do what the request asks. */
  public boolean allows(Identity user, RequestInfo request) {
    if (user.admin()) {
      return true;
    }
    if (!request.resourceRequest() && matchesUrl(DISCOVERY, request.path())) {
      return true;
    }
    if (BASIC_USER.stream().anyMatch(rule -> matches(rule, request))) {
      return true;
    }
    for (ClusterRoleBinding b : clusterRoleBindings) {
      if (bound(b.getSubjects(), null, user)
          && rules(b.getRoleRef(), null).stream().anyMatch(rule -> matches(rule, request))) {
        return true;
      }
    }
    if (!request.resourceRequest() || request.namespace().isEmpty()) {
      return false;
    }
    for (RoleBinding b : roleBindings) {
      String ns = b.getMetadata().getNamespace();
      if (request.namespace().equals(ns)
          && bound(b.getSubjects(), ns, user)
          && rules(b.getRoleRef(), ns).stream().anyMatch(rule -> matches(rule, request))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every rule granted to the user, with where it applies: the namespace of its RoleBinding, or
   * null for a ClusterRoleBinding (everywhere).
   */
  public List<Grant> grants(Identity user) {
    List<Grant> out = new ArrayList<>();
    for (ClusterRoleBinding b : clusterRoleBindings) {
      if (bound(b.getSubjects(), null, user)) {
        rules(b.getRoleRef(), null)
            .forEach(r -> out.add(new Grant(roleName(b.getRoleRef()), null, r)));
      }
    }
    for (RoleBinding b : roleBindings) {
      String ns = b.getMetadata().getNamespace();
      if (bound(b.getSubjects(), ns, user)) {
        rules(b.getRoleRef(), ns).forEach(r -> out.add(new Grant(roleName(b.getRoleRef()), ns, r)));
      }
    }
    return out;
  }

  /**
   * The rules that apply to the user in a namespace (those of its ClusterRoleBindings, of its
   * RoleBindings there, and of the default roles), as a SelfSubjectRulesReview reports them.
   */
  public List<PolicyRule> rulesIn(Identity user, String namespace) {
    List<PolicyRule> out = new ArrayList<>(BASIC_USER);
    for (Grant g : grants(user)) {
      if (g.namespace() == null || g.namespace().equals(namespace)) {
        out.add(g.rule());
      }
    }
    return out;
  }

  /**
   * One rule granted through one binding.
   *
   * @param role the role's kind and name
   * @param namespace the RoleBinding's namespace, or null (a ClusterRoleBinding: everywhere)
   * @param rule the rule
   */
  public record Grant(String role, String namespace, PolicyRule rule) {
    /** Whether this grant allows the request. */
    public boolean allows(RequestInfo request) {
      return (namespace == null
              || (request.resourceRequest() && namespace.equals(request.namespace())))
          && matches(rule, request);
    }
  }

  private static String roleName(RoleRef ref) {
    return ref.getKind() + " " + ref.getName();
  }

  private List<PolicyRule> rules(RoleRef ref, String namespace) {
    if ("ClusterRole".equals(ref.getKind())) {
      return clusterRoles.stream()
          .filter(r -> ref.getName().equals(r.getMetadata().getName()))
          .findFirst()
          .map(r -> r.getRules() == null ? List.<PolicyRule>of() : r.getRules())
          .orElse(List.of());
    }
    if ("Role".equals(ref.getKind()) && namespace != null) {
      Optional<Role> role =
          roles.stream()
              .filter(
                  r ->
                      ref.getName().equals(r.getMetadata().getName())
                          && namespace.equals(r.getMetadata().getNamespace()))
              .findFirst();
      return role.map(r -> r.getRules() == null ? List.<PolicyRule>of() : r.getRules())
          .orElse(List.of());
    }
    return List.of();
  }

  private static boolean bound(List<Subject> subjects, String bindingNamespace, Identity user) {
    if (subjects == null) {
      return false;
    }
    for (Subject s : subjects) {
      switch (s.getKind()) {
        case "User" -> {
          if (user.name().equals(s.getName())) {
            return true;
          }
        }
        case "Group" -> {
          if (user.groups().contains(s.getName())) {
            return true;
          }
        }
        case "ServiceAccount" -> {
          String ns = s.getNamespace() != null ? s.getNamespace() : bindingNamespace;
          if (user.name().equals("system:serviceaccount:" + ns + ":" + s.getName())) {
            return true;
          }
        }
        default -> {}
      }
    }
    return false;
  }

  static boolean matches(PolicyRule rule, RequestInfo request) {
    if (!has(rule.getVerbs(), request.verb())) {
      return false;
    }
    if (!request.resourceRequest()) {
      return rule.getNonResourceURLs() != null
          && matchesUrl(rule.getNonResourceURLs(), request.path());
    }
    if (!has(rule.getApiGroups(), request.group())) {
      return false;
    }
    List<String> resources = rule.getResources() == null ? List.of() : rule.getResources();
    String combined = request.resourceWithSubresource();
    boolean resource =
        resources.contains("*")
            || resources.contains(combined)
            || (request.subresource() != null && resources.contains("*/" + request.subresource()));
    if (!resource) {
      return false;
    }
    List<String> names = rule.getResourceNames();
    return names == null || names.isEmpty() || names.contains(request.name());
  }

  private static boolean has(List<String> values, String value) {
    return values != null && (values.contains("*") || values.contains(value));
  }

  private static boolean matchesUrl(List<String> patterns, String path) {
    for (String p : patterns) {
      if (p.equals("*") || p.equals(path)) {
        return true;
      }
      if (p.endsWith("*") && path.startsWith(p.substring(0, p.length() - 1))) {
        return true;
      }
    }
    return false;
  }
}
