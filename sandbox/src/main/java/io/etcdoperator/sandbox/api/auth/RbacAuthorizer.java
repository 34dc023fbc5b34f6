package io.etcdoperator.sandbox.api.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RBAC decisions on the Roles, ClusterRoles and bindings stored now (see {@link Rbac}), each
 * decision on a user recorded in that user's {@link RbacUsage}. The objects are read from the store
 * again only after a write to the RBAC group ({@link #invalidate}), so that a binding written
 * through the API takes effect at the next request.
 */
public final class RbacAuthorizer {
  /** The API group of the objects RBAC decides by. */
  public static final String GROUP = "rbac.authorization.k8s.io";

  private final Store store;
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Map<String, RbacUsage> usage = new ConcurrentHashMap<>();
  private final AtomicLong rbacVersion = new AtomicLong();
  private volatile RbacSnapshot snapshot;

  public RbacAuthorizer(Store store) {
    this.store = store;
  }

  private record RbacSnapshot(long version, Rbac rbac) {}

  /** Whether RBAC lets the user do what it asks; recorded as a use either way. */
  public boolean authorize(Identity user, RequestInfo request) throws Exception {
    boolean allowed = rbac().allows(user, request);
    usage(user).record(request, allowed);
    return allowed;
  }

  /** Whether RBAC lets the user do it, not recorded as a use (a SelfSubjectAccessReview's). */
  public boolean allows(Identity user, RequestInfo request) throws Exception {
    return rbac().allows(user, request);
  }

  /** The rules that apply to the user in a namespace (a SelfSubjectRulesReview's). */
  public List<PolicyRule> rulesIn(Identity user, String namespace) throws Exception {
    return rbac().rulesIn(user, namespace);
  }

  /** What a (non-administrator) user has asked for so far. */
  public RbacUsage usage(Identity user) {
    return usage.computeIfAbsent(user.name(), k -> new RbacUsage());
  }

  /** An RBAC object was (or may have been) written: read them again when next asked. */
  public void invalidate() {
    rbacVersion.incrementAndGet();
  }

  /** The RBAC objects stored now. */
  private Rbac rbac() throws Exception {
    long version = rbacVersion.get();
    RbacSnapshot s = snapshot;
    if (s != null && s.version() == version) {
      return s.rbac();
    }
    List<HasMetadata> objects = new ArrayList<>();
    for (var kind :
        List.of(
            Map.entry("roles", Role.class),
            Map.entry("clusterroles", ClusterRole.class),
            Map.entry("rolebindings", RoleBinding.class),
            Map.entry("clusterrolebindings", ClusterRoleBinding.class))) {
      MockResponse r = store.get("/apis/" + GROUP + "/v1/" + kind.getKey());
      if (r.code() == 200) {
        for (JsonNode item : mapper.readTree(r.getBody().readUtf8()).path("items")) {
          objects.add(mapper.treeToValue(item, kind.getValue()));
        }
      }
    }
    Rbac rbac = Rbac.of(objects);
    snapshot = new RbacSnapshot(version, rbac);
    return rbac;
  }
}
