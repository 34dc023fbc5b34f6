package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.admission.CoreValidation;
import io.etcdoperator.sandbox.api.admission.CrdValidation;
import io.etcdoperator.sandbox.api.admission.FieldError;
import io.etcdoperator.sandbox.api.admission.Invalid;
import io.etcdoperator.sandbox.api.admission.PodSecurity;
import io.etcdoperator.sandbox.api.admission.StructuralSchema;
import io.etcdoperator.sandbox.api.auth.Authenticator;
import io.etcdoperator.sandbox.api.auth.Forbidden;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.Rbac;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's CRUD mock server, completed where clients of a real API server notice its absence.
 *
 * <p>Every request goes to the mock's in-memory store, except:
 *
 * <ul>
 *   <li>discovery ({@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/<g>}, {@code
 *       /apis/<g>/<v>}) and {@code /version}, answered from the built-in types plus the CRDs
 *       currently stored, so that kubectl and fabric8 find every resource;
 *   <li>{@code /openapi/v3}: just enough for kubectl to validate on the server (see {@link
 *       OpenApi}); {@code /openapi/v2}: 404;
 *   <li>the {@code scale} subresource of StatefulSets and of CRDs that declare one, turned into a
 *       read and an update of the object's replica field;
 *   <li>pod deletion, made graceful (see {@link #TERMINATION_FINALIZER});
 *   <li>strategic merge patches, which the mock refuses, turned into an update computed by {@link
 *       StrategicMerge}; JSON merge patches, whose lists the mock merges, turned into an update
 *       computed by {@link JsonMergePatch} (lists replaced, as RFC 7386 says);
 *   <li>{@code POST /sandbox/v1/<verb>}, handed to the {@link ControlHandler} (fault injection from
 *       the command line).
 * </ul>
 *
 * <p>Built-in kinds with a status subresource (pods, statefulsets, services, ...) are registered
 * with the mock as such, so that an update of the object keeps its status and an update of {@code
 * /status} keeps the rest, as on a real server.
 */
public final class SandboxDispatcher extends KubernetesCrudDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxDispatcher.class);
  private static final String CRD_LIST = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  private static final String VERSION =
      "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-sandbox\","
          + "\"gitCommit\":\"sandbox\",\"gitTreeState\":\"clean\",\"buildDate\":\"2025-01-01T00:00:00Z\","
          + "\"goVersion\":\"go1.23\",\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}";

  /**
   * Held by a pod from its graceful deletion until the kubelet has stopped its processes, so that
   * the pod stays visible as Terminating meanwhile (the mock keeps an object marked for deletion
   * only while it has finalizers).
   */
  public static final String TERMINATION_FINALIZER = "sandbox.etcd-operator.io/pod-termination";

  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Discovery discovery = new Discovery(mapper);
  private final OpenApi openApi = new OpenApi(mapper);
  private final Tables tables = new Tables(mapper);
  private final Object compositeWrites = new Object();
  private static final String RBAC_GROUP = "rbac.authorization.k8s.io";
  private final Authenticator authenticator = new Authenticator();
  private final Map<String, RbacUsage> usage = new ConcurrentHashMap<>();
  private final AtomicLong rbacVersion = new AtomicLong();
  private final AtomicLong crdVersion = new AtomicLong();
  private final Map<String, StructuralSchema> schemas = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger clusterIps =
      new java.util.concurrent.atomic.AtomicInteger(10);
  private volatile RbacSnapshot rbacSnapshot;
  private volatile String serverAddress = "127.0.0.1:443";
  private volatile ControlHandler control;
  private volatile LogSource logs;
  private volatile long defaultTolerationSeconds = 300;

  /** The store, indexed by name (see {@link NamedObjects}); null if it could not be installed. */
  private final NamedObjects named;

  /** fabric8's lock over its store: reads share it, writes hold it alone. */
  private final java.util.concurrent.locks.ReadWriteLock storeLock;

  /** fabric8's last resourceVersion, which a list carries. */
  private AtomicLong storeVersion;

  public SandboxDispatcher() {
    NamedObjects index = new NamedObjects();
    java.util.concurrent.locks.ReadWriteLock rw = null;
    try {
      // The store is a final field the base class fills with an unindexed map; empty still.
      java.lang.reflect.Field store =
          io.fabric8.mockwebserver.crud.CrudDispatcher.class.getDeclaredField("map");
      store.setAccessible(true);
      store.set(this, java.util.Collections.synchronizedMap(index));
      java.lang.reflect.Field lock = KubernetesCrudDispatcher.class.getDeclaredField("lock");
      lock.setAccessible(true);
      java.lang.reflect.Field version =
          KubernetesCrudDispatcher.class.getDeclaredField("resourceVersion");
      version.setAccessible(true);
      storeVersion = (AtomicLong) version.get(this);
      rw = (java.util.concurrent.locks.ReadWriteLock) lock.get(this);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("the API server's store is not indexed (every request scans it): {}", e.toString());
      index = null;
    }
    this.named = rw == null ? null : index;
    this.storeLock = rw;
    for (ResourceType t : BuiltInTypes.ALL) {
      if (t.statusSubresource()) {
        expectCustomResource(
            new CustomResourceDefinitionContext.Builder()
                .withGroup(t.group().isEmpty() ? null : t.group())
                .withVersion(t.version())
                .withPlural(t.plural())
                .withKind(t.kind())
                .withScope(t.namespaced() ? "Namespaced" : "Cluster")
                .withStatusSubresource(true)
                .build());
      }
    }
  }

  /**
   * One named object from the index, as the base class answers it (the stored JSON, or 404); lists,
   * watches and what the index cannot serve go to the base class.
   */
  @Override
  public MockResponse handleGet(String path) {
    if (named == null || path.contains("watch=")) {
      return super.handleGet(path);
    }
    io.fabric8.mockwebserver.crud.AttributeSet query = getAttributeExtractor().fromPath(path);
    Optional<String> name = NamedObjects.nameOf(query);
    if (name.isEmpty()) {
      return list(path, query);
    }
    storeLock.readLock().lock();
    try {
      Optional<Map.Entry<io.fabric8.mockwebserver.crud.AttributeSet, String>> found;
      synchronized (map) {
        found = named.find(name.get(), query);
      }
      MockResponse r = new MockResponse();
      return found.isPresent()
          ? r.setBody(found.get().getValue()).setResponseCode(200)
          : r.setResponseCode(404);
    } finally {
      storeLock.readLock().unlock();
    }
  }

  /**
   * A list of one resource type from the index, composed as the base class composes it; an empty
   * one (which may be a discovery path) and what the index cannot serve go to the base class.
   */
  private MockResponse list(String path, io.fabric8.mockwebserver.crud.AttributeSet query) {
    Optional<String> plural = NamedObjects.value(query, NamedObjects.PLURAL);
    if (plural.isEmpty()
        || storeVersion == null
        || !(getResponseComposer()
            instanceof io.fabric8.kubernetes.client.server.mock.KubernetesResponseComposer c)) {
      return super.handleGet(path);
    }
    storeLock.readLock().lock();
    try {
      Optional<List<String>> items;
      synchronized (map) {
        items = named.list(plural.get(), query);
      }
      if (items.isEmpty() || items.get().isEmpty()) {
        return super.handleGet(path);
      }
      return new MockResponse()
          .setBody(c.compose(items.get(), String.valueOf(storeVersion.get())))
          .setResponseCode(200);
    } finally {
      storeLock.readLock().unlock();
    }
  }

  /** The stored object a write is about, from the index when the query names it. */
  @Override
  public Map.Entry<io.fabric8.mockwebserver.crud.AttributeSet, String> findResource(
      io.fabric8.mockwebserver.crud.AttributeSet query) {
    Optional<String> name = named == null ? Optional.empty() : NamedObjects.nameOf(query);
    if (name.isEmpty()) {
      return super.findResource(query);
    }
    synchronized (map) {
      return named.find(name.get(), query).orElse(null);
    }
  }

  void setServerAddress(String hostPort) {
    this.serverAddress = hostPort;
  }

  /** The tolerationSeconds the DefaultTolerationSeconds admission gives new pods. */
  void setDefaultTolerationSeconds(long seconds) {
    this.defaultTolerationSeconds = seconds;
  }

  void setLogSource(LogSource logs) {
    this.logs = logs;
  }

  void setControlHandler(ControlHandler handler) {
    this.control = handler;
  }

  /** The tokens this server accepts, and whose they are. */
  Authenticator authenticator() {
    return authenticator;
  }

  /** What a (non-administrator) user has asked for so far. */
  RbacUsage usage(Identity user) {
    return usage.computeIfAbsent(user.name(), k -> new RbacUsage());
  }

  /**
   * Authenticates the request by its bearer token (401 without a known one), then handles it as
   * that user.
   */
  @Override
  public MockResponse dispatch(RecordedRequest request) {
    Optional<Identity> user = authenticator.authenticate(request.getHeader("Authorization"));
    if (user.isEmpty()) {
      LOG.debug("{} {} -> 401", request.getMethod(), request.getPath());
      return status(401, "Unauthorized", "Unauthorized");
    }
    return dispatchAs(user.get(), request);
  }

  /**
   * Handles a request as the given user: RBAC first (403 for what no rule allows; every decision on
   * a non-administrator is recorded in its {@link RbacUsage}), then admission, then storage.
   */
  MockResponse dispatchAs(Identity user, RecordedRequest request) {
    try {
      RequestInfo info = RequestInfo.of(request.method(), request.getPath());
      if (!user.admin()) {
        boolean allowed = rbac().allows(user, info);
        usage(user).record(info, allowed);
        if (!allowed) {
          LOG.debug("{} {} -> 403 for {}", request.getMethod(), request.getPath(), user.name());
          return forbidden(info, Forbidden.reason(user, info));
        }
      }
      MockResponse r = route(request, new Caller(user, info));
      if (r.getWebSocketListener() == null && r.header("Content-Type") == null) {
        // without it, clients that asked for protobuf (kubectl) try to decode the JSON as protobuf
        r.setHeader("Content-Type", "application/json");
      }
      if (info.resourceRequest() && request.method() != HttpMethod.GET) {
        if (RBAC_GROUP.equals(info.group())) {
          rbacVersion.incrementAndGet();
        } else if ("customresourcedefinitions".equals(info.resource())) {
          crdVersion.incrementAndGet();
        }
      }
      if (LOG.isDebugEnabled()) {
        LOG.debug("{} {} -> {}", request.getMethod(), request.getPath(), r.code());
      }
      return r;
    } catch (Exception e) {
      LOG.warn("{} {} failed", request.getMethod(), request.getPath(), e);
      return status(500, "InternalError", String.valueOf(e));
    }
  }

  /** Who asks, and what. */
  record Caller(Identity user, RequestInfo info) {}

  /** The RBAC objects stored now (read again after any write to them). */
  private Rbac rbac() throws Exception {
    long version = rbacVersion.get();
    RbacSnapshot s = rbacSnapshot;
    if (s != null && s.version() == version) {
      return s.rbac();
    }
    List<io.fabric8.kubernetes.api.model.HasMetadata> objects = new ArrayList<>();
    for (var kind :
        List.of(
            Map.entry("roles", io.fabric8.kubernetes.api.model.rbac.Role.class),
            Map.entry("clusterroles", io.fabric8.kubernetes.api.model.rbac.ClusterRole.class),
            Map.entry("rolebindings", io.fabric8.kubernetes.api.model.rbac.RoleBinding.class),
            Map.entry(
                "clusterrolebindings",
                io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class))) {
      MockResponse r = handleGet("/apis/" + RBAC_GROUP + "/v1/" + kind.getKey());
      if (r.code() == 200) {
        for (JsonNode item : mapper.readTree(r.getBody().readUtf8()).path("items")) {
          objects.add(mapper.treeToValue(item, kind.getValue()));
        }
      }
    }
    Rbac rbac = Rbac.of(objects);
    rbacSnapshot = new RbacSnapshot(version, rbac);
    return rbac;
  }

  private record RbacSnapshot(long version, Rbac rbac) {}

  /**
   * The OwnerReferencesPermissionEnforcement admission plugin (enabled on OpenShift and on clusters
   * that harden their API server): setting {@code blockOwnerDeletion} on a reference to an owner
   * needs {@code update} on the owner's {@code finalizers} subresource. Checked on every create and
   * update by a non-administrator, for each reference that newly blocks its owner's deletion; the
   * check counts as a use of that permission.
   */
  private MockResponse ownerReferences(Caller caller, JsonNode object, JsonNode old)
      throws Exception {
    if (caller.user().admin() || object == null) {
      return null;
    }
    for (JsonNode ref : object.path("metadata").path("ownerReferences")) {
      if (!ref.path("blockOwnerDeletion").asBoolean(false)) {
        continue;
      }
      boolean already = false;
      for (JsonNode o :
          old == null ? mapper.createArrayNode() : old.path("metadata").path("ownerReferences")) {
        already |=
            o.path("uid").asText().equals(ref.path("uid").asText())
                && o.path("blockOwnerDeletion").asBoolean(false);
      }
      if (already) {
        continue;
      }
      String apiVersion = ref.path("apiVersion").asText();
      String group =
          apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      String plural = null;
      for (ResourceType t : types()) {
        if (t.group().equals(group) && t.kind().equals(ref.path("kind").asText())) {
          plural = t.plural();
        }
      }
      if (plural == null) {
        continue;
      }
      RequestInfo finalizers = caller.info().asking("update", group, plural, "finalizers");
      boolean allowed = rbac().allows(caller.user(), finalizers);
      usage(caller.user()).record(finalizers, allowed);
      if (!allowed) {
        return forbidden(
            caller.info(),
            "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set"
                + " finalizers on: "
                + Forbidden.reason(caller.user(), finalizers)
                + ", "
                + ref);
      }
    }
    return null;
  }

  /**
   * A SelfSubjectRulesReview (which JOSDK sends to check its Lease permissions before it elects a
   * leader): the caller's rules in the namespace asked about, complete.
   */
  private MockResponse rulesReview(Caller caller, JsonNode review) throws Exception {
    String ns = review.path("spec").path("namespace").asText("");
    ObjectNode out = mapper.createObjectNode();
    out.put("kind", "SelfSubjectRulesReview");
    out.put("apiVersion", "authorization.k8s.io/v1");
    out.putObject("metadata");
    out.putObject("spec").put("namespace", ns);
    ObjectNode status = out.putObject("status");
    com.fasterxml.jackson.databind.node.ArrayNode rules = status.putArray("resourceRules");
    com.fasterxml.jackson.databind.node.ArrayNode urls = status.putArray("nonResourceRules");
    if (caller.user().admin()) {
      rules.addObject().set("verbs", mapper.valueToTree(List.of("*")));
      ((ObjectNode) rules.get(0)).set("apiGroups", mapper.valueToTree(List.of("*")));
      ((ObjectNode) rules.get(0)).set("resources", mapper.valueToTree(List.of("*")));
      urls.addObject()
          .<ObjectNode>set("verbs", mapper.valueToTree(List.of("*")))
          .set("nonResourceURLs", mapper.valueToTree(List.of("*")));
    } else {
      for (var rule : rbac().rulesIn(caller.user(), ns)) {
        ObjectNode r = mapper.createObjectNode();
        r.set("verbs", mapper.valueToTree(rule.getVerbs()));
        if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
          r.set("nonResourceURLs", mapper.valueToTree(rule.getNonResourceURLs()));
          urls.add(r);
          continue;
        }
        r.set("apiGroups", mapper.valueToTree(rule.getApiGroups()));
        r.set("resources", mapper.valueToTree(rule.getResources()));
        if (rule.getResourceNames() != null && !rule.getResourceNames().isEmpty()) {
          r.set("resourceNames", mapper.valueToTree(rule.getResourceNames()));
        }
        rules.add(r);
      }
    }
    status.put("incomplete", false);
    return json(201, out.toString());
  }

  private static MockResponse forbidden(RequestInfo info, String reason) {
    ObjectNode s = statusNode(403, "Forbidden", Forbidden.message(info, reason));
    if (info.resourceRequest()) {
      ObjectNode details = s.putObject("details");
      if (!info.name().isEmpty()) {
        details.put("name", info.name());
      }
      if (!info.group().isEmpty()) {
        details.put("group", info.group());
      }
      details.put("kind", info.resource());
    }
    return json(403, s.put("code", 403).toString());
  }

  private MockResponse route(RecordedRequest request, Caller caller) throws Exception {
    String path = request.getPath();
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    if (bare.length() > 1 && bare.endsWith("/")) {
      bare = bare.substring(0, bare.length() - 1);
    }
    HttpMethod method = request.method();
    if (bare.startsWith("/sandbox/v1/") && method == HttpMethod.POST) {
      return control(bare.substring("/sandbox/v1/".length()), request.getUtf8Body());
    }
    if (method == HttpMethod.GET) {
      MockResponse d = discovery(bare);
      if (d != null) {
        return d;
      }
    }
    ApiPath api = ApiPath.parse(bare);
    if (api != null && "scale".equals(api.subresource()) && api.name() != null) {
      return scale(request, api);
    }
    if (api != null
        && "log".equals(api.subresource())
        && "pods".equals(api.plural())
        && method == HttpMethod.GET) {
      return podLog(api, path);
    }
    if (api != null
        && "pods".equals(api.plural())
        && api.name() != null
        && api.subresource() != null
        && List.of("exec", "attach", "portforward").contains(api.subresource())) {
      return streamingRefused(api);
    }
    if (method == HttpMethod.GET
        && api != null
        && api.name() == null
        && ("events".equals(api.plural()) || "pods".equals(api.plural()))
        && api.group().isEmpty()
        && !path.contains("watch=true")
        && path.contains("fieldSelector=")) {
      return fieldSelected(request, path, api.plural());
    }
    if (method == HttpMethod.POST
        && api != null
        && api.group().isEmpty()
        && api.namespace() != null
        && ("pods".equals(api.plural()) && "binding".equals(api.subresource())
            || "bindings".equals(api.plural()) && api.name() == null)) {
      JsonNode binding = mapper.readTree(bodyOf(request));
      String pod =
          "pods".equals(api.plural())
              ? api.name()
              : binding.path("metadata").path("name").asText("");
      return bind(api.namespace(), pod, binding);
    }
    if (method == HttpMethod.POST
        && api != null
        && api.group().isEmpty()
        && "pods".equals(api.plural())
        && "eviction".equals(api.subresource())) {
      return evict(api, mapper.readTree(bodyOf(request)));
    }
    if (method == HttpMethod.DELETE
        && api != null
        && api.name() != null
        && api.subresource() == null
        && orphaning(request, path)) {
      orphanDependents(api);
    }
    if (method == HttpMethod.DELETE
        && api != null
        && "pods".equals(api.plural())
        && api.name() != null
        && api.subresource() == null) {
      return deletePod(request, api);
    }
    if (api != null && api.subresource() != null && !"status".equals(api.subresource())) {
      return status(
          404, "NotFound", "the sandbox does not serve " + api.plural() + "/" + api.subresource());
    }
    if (api != null
        && "authorization.k8s.io".equals(api.group())
        && "selfsubjectrulesreviews".equals(api.plural())
        && method == HttpMethod.POST) {
      return rulesReview(caller, mapper.readTree(bodyOf(request)));
    }
    if (method == HttpMethod.PATCH && isStrategic(request)) {
      return patch(request, path, caller, StrategicMerge::apply);
    }
    if (method == HttpMethod.PATCH && contentType(request).contains("merge-patch+json")) {
      return patch(request, path, caller, JsonMergePatch::apply);
    }
    if (method == HttpMethod.PATCH && contentType(request).contains("json-patch+json")) {
      return patch(request, path, caller, (object, p) -> JsonPatch.apply(p, object));
    }
    if ((method == HttpMethod.POST || method == HttpMethod.PUT)
        && api != null
        && api.plural() != null) {
      JsonNode object = mapper.readTree(bodyOf(request));
      JsonNode old = null;
      if (method == HttpMethod.PUT && api.name() != null) {
        MockResponse current = handleGet(api.objectPath());
        old = current.code() == 200 ? mapper.readTree(current.getBody().readUtf8()) : null;
      }
      Admission admitted = admit(caller, api, object, old);
      if (admitted.refusal() != null) {
        return admitted.refusal();
      }
      if (admitted.object() != null && admitted.object().isObject()) {
        request = rewrite(method, path, admitted.object().toString());
      }
    }
    MockResponse r = super.dispatch(request);
    if (method == HttpMethod.GET
        && api != null
        && r.code() == 200
        && wantsTable(request)
        && r.getWebSocketListener() == null) {
      return asTable(api, r);
    }
    if (r.getWebSocketListener() == null && r.header("Content-Type") == null) {
      // without it, clients that asked for protobuf try to decode the JSON as protobuf
      r.setHeader("Content-Type", "application/json");
    }
    return r;
  }

  /**
   * What admission made of a write: the object to store (defaults applied, unknown fields pruned),
   * or the refusal.
   */
  record Admission(JsonNode object, MockResponse refusal) {
    static Admission refused(MockResponse refusal) {
      return new Admission(null, refusal);
    }
  }

  /**
   * Admission of a create or update (also of a patch, once merged): the checks a real API server
   * runs before it stores an object, in its order: mutation, then validation.
   */
  private Admission admit(Caller caller, ApiPath api, JsonNode object, JsonNode old)
      throws Exception {
    if (object == null || !object.isObject()) {
      return new Admission(object, null);
    }
    MockResponse refused = ownerReferences(caller, object, old);
    if (refused != null) {
      return Admission.refused(refused);
    }
    ResourceType type = type(api);
    if (type == null) {
      return new Admission(object, null);
    }
    String name = object.path("metadata").path("name").asText(api.name() == null ? "" : api.name());
    List<FieldError> errors = List.of();
    if (BuiltInTypes.ALL.contains(type)) {
      if (api.subresource() != null) {
        return new Admission(object, null);
      }
      CoreValidation.mutate(
          api.group(), api.plural(), (ObjectNode) object, old, this::nextClusterIp);
      if (old == null && api.group().isEmpty() && api.plural().equals("pods")) {
        DefaultTolerations.apply((ObjectNode) object, defaultTolerationSeconds);
      }
      errors = CoreValidation.validate(api.group(), api.plural(), object, old);
      if (errors.isEmpty()
          && api.group().isEmpty()
          && api.plural().equals("persistentvolumeclaims")) {
        if (old == null) {
          defaultStorageClass((ObjectNode) object);
        } else {
          MockResponse resize = resize(caller.info(), api, name, object, old);
          if (resize != null) {
            return Admission.refused(resize);
          }
        }
      }
      if (api.plural().equals("customresourcedefinitions")) {
        errors = CrdValidation.validate(object);
      }
      if (errors.isEmpty() && old == null && api.plural().equals("pods") && api.group().isEmpty()) {
        MockResponse insecure = podSecurity(caller.info(), api, name, object);
        if (insecure != null) {
          return Admission.refused(insecure);
        }
      }
    } else if (api.subresource() == null || api.subresource().equals("status")) {
      StructuralSchema schema = schema(api);
      if (schema != null) {
        if ("status".equals(api.subresource()) && old != null && old.has("spec")) {
          // the status subresource ignores the spec it is sent: the stored one is validated
          ((ObjectNode) object).set("spec", old.get("spec"));
        }
        schema.pruneAndDefault((ObjectNode) object);
        errors = schema.validate(object, old);
      }
    }
    if (!errors.isEmpty()) {
      return Admission.refused(json(422, Invalid.status(type.kind(), type.group(), name, errors)));
    }
    return new Admission(object, null);
  }

  /** The schema of a custom resource's version, from its stored CRD (cached until a CRD write). */
  private StructuralSchema schema(ApiPath api) throws Exception {
    long version = crdVersion.get();
    String key = version + " " + api.group() + "/" + api.version() + "/" + api.plural();
    StructuralSchema cached = schemas.get(key);
    if (cached != null) {
      return cached;
    }
    MockResponse r = handleGet(CRD_LIST);
    if (r.code() != 200) {
      return null;
    }
    for (JsonNode crd : mapper.readTree(r.getBody().readUtf8()).path("items")) {
      JsonNode spec = crd.path("spec");
      if (!spec.path("group").asText().equals(api.group())
          || !spec.path("names").path("plural").asText().equals(api.plural())) {
        continue;
      }
      for (JsonNode v : spec.path("versions")) {
        JsonNode s = v.path("schema").path("openAPIV3Schema");
        if (v.path("name").asText().equals(api.version()) && s.isObject()) {
          StructuralSchema schema = new StructuralSchema(s);
          schemas.clear();
          schemas.put(key, schema);
          return schema;
        }
      }
    }
    return null;
  }

  /**
   * Pod Security Admission: a pod created in a namespace whose {@code
   * pod-security.kubernetes.io/enforce} label names a level must meet it (see {@link PodSecurity});
   * else 403, as the API server answers.
   */
  private MockResponse podSecurity(RequestInfo info, ApiPath api, String name, JsonNode pod)
      throws Exception {
    String ns =
        api.namespace() != null
            ? api.namespace()
            : pod.path("metadata").path("namespace").asText("default");
    MockResponse r = handleGet("/api/v1/namespaces/" + ns);
    if (r.code() != 200) {
      return null;
    }
    JsonNode labels = mapper.readTree(r.getBody().readUtf8()).path("metadata").path("labels");
    String level = labels.path(PodSecurity.ENFORCE).asText("privileged");
    List<String> violations = PodSecurity.violations(level, pod.path("spec"));
    if (violations.isEmpty()) {
      return null;
    }
    String version = labels.path(PodSecurity.ENFORCE_VERSION).asText("latest");
    RequestInfo named = new RequestInfo(info.verb(), true, "", "pods", null, name, ns, info.path());
    return forbidden(
        named,
        "violates PodSecurity \"" + level + ":" + version + "\": " + String.join(", ", violations));
  }

  /**
   * The DefaultStorageClass admission plugin: a claim created without {@code storageClassName} gets
   * the class annotated {@code storageclass.kubernetes.io/is-default-class: "true"}, if any.
   */
  private void defaultStorageClass(ObjectNode claim) throws Exception {
    JsonNode spec = claim.path("spec");
    if (!spec.isObject() || spec.has("storageClassName")) {
      return;
    }
    for (JsonNode cls : storageClasses()) {
      if ("true"
          .equals(
              cls.path("metadata")
                  .path("annotations")
                  .path("storageclass.kubernetes.io/is-default-class")
                  .asText())) {
        ((ObjectNode) spec).put("storageClassName", cls.path("metadata").path("name").asText());
        return;
      }
    }
  }

  /**
   * The PersistentVolumeClaimResize admission plugin: a claim's storage request may grow only when
   * the claim is bound and its StorageClass exists and says {@code allowVolumeExpansion: true};
   * else 403 with the API server's words.
   */
  private MockResponse resize(
      RequestInfo info, ApiPath api, String name, JsonNode claim, JsonNode old) throws Exception {
    long now = CoreValidation.storageRequest(claim.path("spec"));
    long before = CoreValidation.storageRequest(old.path("spec"));
    if (now <= before) {
      return null;
    }
    String className = old.path("spec").path("storageClassName").asText("");
    boolean allowed = false;
    if ("Bound".equals(old.path("status").path("phase").asText()) && !className.isEmpty()) {
      for (JsonNode cls : storageClasses()) {
        if (className.equals(cls.path("metadata").path("name").asText())) {
          allowed = cls.path("allowVolumeExpansion").asBoolean(false);
        }
      }
    }
    if (allowed) {
      return null;
    }
    String ns = api.namespace() != null ? api.namespace() : "default";
    RequestInfo named =
        new RequestInfo(
            info.verb(), true, "", "persistentvolumeclaims", null, name, ns, info.path());
    return forbidden(
        named,
        "only dynamically provisioned pvc can be resized and the storageclass that provisions the"
            + " pvc must support resize");
  }

  private List<JsonNode> storageClasses() throws Exception {
    MockResponse r = handleGet("/apis/storage.k8s.io/v1/storageclasses");
    List<JsonNode> out = new java.util.ArrayList<>();
    if (r.code() == 200) {
      mapper.readTree(r.getBody().readUtf8()).path("items").forEach(out::add);
    }
    return out;
  }

  /** A cluster IP for a new Service (from 10.96.0.0/16; nothing is ever sent there). */
  private String nextClusterIp() {
    int n = clusterIps.incrementAndGet();
    return "10.96." + ((n >> 8) & 0xff) + "." + (n & 0xff);
  }

  /** The served type of an API path, or null. */
  private ResourceType type(ApiPath api) throws Exception {
    for (ResourceType t : types()) {
      if (t.group().equals(api.group())
          && t.version().equals(api.version())
          && t.plural().equals(api.plural())) {
        return t;
      }
    }
    return null;
  }

  /** The request's body as text, left for whoever reads it next. */
  private static String bodyOf(RecordedRequest request) {
    return request.getBody() == null
        ? ""
        : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * {@code kubectl exec}, {@code attach} and {@code port-forward} need a streaming connection the
   * mock server cannot make: refused with a message that says so and gives the command that does
   * the same on this machine (in the container's mount and UTS namespaces, where its hosts file,
   * DNS and volumes are).
   */
  private MockResponse streamingRefused(ApiPath api) {
    String how = "";
    PodProcesses processes = this.pods;
    long pid = processes == null ? -1 : processes.pid(api.namespace(), api.name());
    if (pid > 0) {
      how =
          "; to run a command in its container on this machine: nsenter --target "
              + pid
              + " --mount --uts -- <command> (e.g. etcdctl --endpoints=http://"
              + api.name()
              + ":2379 endpoint health)";
    }
    return status(
        501,
        "NotImplemented",
        "the sandbox does not serve pods/"
            + api.subresource()
            + " (it needs a streaming connection the sandbox's API server cannot make)"
            + how);
  }

  /** Finds the main process of a pod's first container, for messages that point at it. */
  public interface PodProcesses {
    /** The pid, or -1. */
    long pid(String namespace, String pod);
  }

  private volatile PodProcesses pods;

  void setPodProcesses(PodProcesses pods) {
    this.pods = pods;
  }

  /**
   * A list of Events with a field selector, which the mock ignores: filtered here on the fields the
   * API server supports for Events ({@code involvedObject.kind/namespace/name/uid/apiVersion/
   * resourceVersion/fieldPath}, {@code reason}, {@code type}, {@code source}, {@code
   * metadata.name/namespace}), with {@code =}, {@code ==} and {@code !=}, as {@code kubectl
   * describe} sends them; likewise a list of pods, on any field by its path ({@code spec.nodeName},
   * {@code status.phase}, ...), as {@code kubectl drain} lists a node's pods.
   */
  private MockResponse fieldSelected(RecordedRequest request, String path, String plural)
      throws Exception {
    int q = path.indexOf('?');
    String base = path.substring(0, q);
    List<String> kept = new ArrayList<>();
    String selector = "";
    for (String kv : path.substring(q + 1).split("&")) {
      if (kv.startsWith("fieldSelector=")) {
        selector =
            java.net.URLDecoder.decode(
                kv.substring("fieldSelector=".length()), java.nio.charset.StandardCharsets.UTF_8);
      } else {
        kept.add(kv);
      }
    }
    MockResponse all = handleGet(kept.isEmpty() ? base : base + "?" + String.join("&", kept));
    if (all.code() != 200) {
      return all;
    }
    ObjectNode list = (ObjectNode) mapper.readTree(all.getBody().readUtf8());
    com.fasterxml.jackson.databind.node.ArrayNode items = mapper.createArrayNode();
    for (JsonNode e : list.path("items")) {
      if (selects(selector, e)) {
        items.add(e);
      }
    }
    list.set("items", items);
    // The mock names its lists "List": kubectl describe decodes an EventList and shows no Events
    // from anything else.
    list.put("kind", plural.equals("pods") ? "PodList" : "EventList");
    list.put("apiVersion", "v1");
    MockResponse r = json(200, list.toString());
    if (wantsTable(request)) {
      ApiPath api = ApiPath.parse(base);
      return asTable(api, r);
    }
    return r;
  }

  private static boolean selects(String selector, JsonNode event) {
    for (String term : selector.split(",")) {
      if (term.isBlank()) {
        continue;
      }
      boolean negate = term.contains("!=");
      String[] kv = term.split(negate ? "!=" : "==?", 2);
      if (kv.length != 2) {
        return false;
      }
      String field = kv[0].trim();
      JsonNode v =
          field.equals("source")
              ? event.path("source").path("component")
              : event.at("/" + field.replace('.', '/'));
      boolean equal = v.asText("").equals(kv[1].trim());
      if (equal == negate) {
        return false;
      }
    }
    return true;
  }

  private static boolean wantsTable(RecordedRequest request) {
    String accept = request.getHeader("Accept");
    return accept != null
        && accept.contains("as=Table")
        && !request.getPath().contains("watch=true");
  }

  /** One object as a Table of one row, as a watch that asked for Tables sends it. */
  JsonNode tableOf(ApiPath api, JsonNode object) {
    try {
      ResourceType type = type(api);
      return type == null ? object : mapper.readTree(tables.table(type, object));
    } catch (Exception e) {
      return object;
    }
  }

  private MockResponse asTable(ApiPath api, MockResponse r) throws Exception {
    ResourceType type = null;
    for (ResourceType t : types()) {
      if (t.group().equals(api.group())
          && t.version().equals(api.version())
          && t.plural().equals(api.plural())) {
        type = t;
      }
    }
    if (type == null || api.subresource() != null) {
      return r.setHeader("Content-Type", "application/json");
    }
    JsonNode body = mapper.readTree(r.getBody().readUtf8());
    return json(200, tables.table(type, body));
  }

  private MockResponse podLog(ApiPath api, String path) throws Exception {
    LogSource logs = this.logs;
    if (logs == null) {
      return status(404, "NotFound", "no logs in this sandbox");
    }
    String container = null;
    int q = path.indexOf('?');
    if (q >= 0) {
      for (String kv : path.substring(q + 1).split("&")) {
        if (kv.startsWith("container=")) {
          container =
              java.net.URLDecoder.decode(
                  kv.substring("container=".length()), java.nio.charset.StandardCharsets.UTF_8);
        }
      }
    }
    String text = logs.log(api.namespace(), api.name(), container);
    if (text == null) {
      return status(
          404,
          "NotFound",
          "no log of pod "
              + api.namespace()
              + "/"
              + api.name()
              + (container == null ? "" : " container " + container));
    }
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "text/plain")
        .setBody(text);
  }

  private MockResponse discovery(String bare) throws Exception {
    switch (bare) {
      case "/version":
        return json(200, VERSION);
      case "/api":
        return json(200, discovery.apiVersions(serverAddress));
      case "/apis":
        return json(200, discovery.groupList(types()));
      case "/openapi/v2":
        return status(404, "NotFound", "the sandbox serves no OpenAPI v2 document");
      case "/openapi/v3":
        return json(200, openApi.root(types()));
      default:
        break;
    }
    if (bare.startsWith("/openapi/v3/")) {
      return orNotFound(openApi.groupVersion(types(), bare.substring("/openapi/v3/".length())));
    }
    String[] parts = bare.substring(1).split("/");
    if (parts.length == 2 && parts[0].equals("api")) {
      return orNotFound(discovery.resourceList(types(), "", parts[1]));
    }
    if (parts.length == 2 && parts[0].equals("apis")) {
      return orNotFound(discovery.group(types(), parts[1]));
    }
    if (parts.length == 3 && parts[0].equals("apis")) {
      return orNotFound(discovery.resourceList(types(), parts[1], parts[2]));
    }
    return null;
  }

  /** Built-in types followed by those of every stored CRD. */
  List<ResourceType> types() throws Exception {
    long version = crdVersion.get();
    var cached = typesCache;
    if (cached != null && cached.version() == version) {
      return cached.types();
    }
    List<ResourceType> all = new ArrayList<>(BuiltInTypes.ALL);
    MockResponse r = handleGet(CRD_LIST);
    if (r.code() == 200) {
      JsonNode items = mapper.readTree(r.getBody().readUtf8()).path("items");
      for (JsonNode item : items) {
        all.addAll(CrdTypes.types(mapper.treeToValue(item, CustomResourceDefinition.class)));
      }
    }
    typesCache = new TypesAt(version, List.copyOf(all));
    return typesCache.types();
  }

  /** The resource types as of a CRD version: every write is admitted by its type. */
  private record TypesAt(long version, List<ResourceType> types) {}

  private volatile TypesAt typesCache;

  private MockResponse scale(RecordedRequest request, ApiPath api) throws Exception {
    ResourceType type = null;
    for (ResourceType t : types()) {
      if (t.group().equals(api.group())
          && t.version().equals(api.version())
          && t.plural().equals(api.plural())) {
        type = t;
      }
    }
    if (type == null || type.scale() == null) {
      return status(404, "NotFound", api.plural() + " has no scale subresource");
    }
    synchronized (compositeWrites) {
      MockResponse current = handleGet(api.objectPath());
      if (current.code() != 200) {
        return current;
      }
      JsonNode object = mapper.readTree(current.getBody().readUtf8());
      ObjectNode scale = Scales.toScale(mapper, object, type.scale());
      if (request.method() == HttpMethod.GET) {
        return json(200, scale.toString());
      }
      String body = request.getUtf8Body();
      JsonNode desired;
      if (request.method() == HttpMethod.PUT) {
        desired = mapper.readTree(body);
      } else if (contentType(request).contains("json-patch")) {
        desired = JsonPatch.apply(mapper.readTree(body), scale);
      } else {
        desired = StrategicMerge.apply(scale, mapper.readTree(body));
      }
      String wantedVersion = desired.path("metadata").path("resourceVersion").asText("");
      String haveVersion = object.path("metadata").path("resourceVersion").asText("");
      if (!wantedVersion.isEmpty() && !wantedVersion.equals(haveVersion)) {
        return status(
            409,
            "Conflict",
            "the object has been modified; please apply your changes to the latest version and try again");
      }
      JsonNode replicas = desired.path("spec").path("replicas");
      if (!replicas.isInt() || replicas.asInt() < 0) {
        return status(422, "Invalid", "spec.replicas must be a non-negative integer");
      }
      ObjectNode updated = object.deepCopy();
      Scales.set(updated, type.scale().specReplicasPath(), replicas);
      MockResponse put =
          super.dispatch(rewrite(HttpMethod.PUT, api.objectPath(), updated.toString()));
      if (put.code() >= 300) {
        return put;
      }
      JsonNode stored = mapper.readTree(put.getBody().readUtf8());
      return json(200, Scales.toScale(mapper, stored, type.scale()).toString());
    }
  }

  /**
   * A patch computed here and stored as an update: strategic merge patches, which the mock refuses,
   * and JSON merge patches, which the mock merges lists of instead of replacing them (RFC 7386, and
   * a real API server, replace a list in a merge patch).
   */
  private MockResponse patch(
      RecordedRequest request,
      String path,
      Caller caller,
      java.util.function.BinaryOperator<JsonNode> merge)
      throws Exception {
    ApiPath api = ApiPath.parse(path);
    if (api == null || api.name() == null) {
      return status(404, "NotFound", path);
    }
    synchronized (compositeWrites) {
      String objectPath =
          api.subresource() == null ? api.objectPath() : api.objectPath() + "/" + api.subresource();
      MockResponse current = handleGet(api.objectPath());
      if (current.code() != 200) {
        return current;
      }
      JsonNode object = mapper.readTree(current.getBody().readUtf8());
      JsonNode merged;
      try {
        merged = merge.apply(object, mapper.readTree(request.getUtf8Body()));
      } catch (RuntimeException e) {
        return status(422, "Invalid", "the patch cannot be applied: " + e.getMessage());
      }
      Admission admitted = admit(caller, api, merged, object);
      if (admitted.refusal() != null) {
        return admitted.refusal();
      }
      return super.dispatch(rewrite(HttpMethod.PUT, objectPath, admitted.object().toString()));
    }
  }

  /**
   * Graceful deletion of a pod, as a real API server does it: the pod gets a deletionTimestamp and
   * stays (Terminating) until the kubelet has stopped its containers and releases it; a grace
   * period of 0, a pod bound to no node, and a pod that has finished are removed at once.
   */
  private MockResponse deletePod(RecordedRequest request, ApiPath api) throws Exception {
    synchronized (compositeWrites) {
      MockResponse current = handleGet(api.objectPath());
      if (current.code() != 200) {
        return status(404, "NotFound", "pods \"" + api.name() + "\" not found");
      }
      ObjectNode pod = (ObjectNode) mapper.readTree(current.getBody().readUtf8());
      ObjectNode meta = (ObjectNode) pod.path("metadata");
      boolean ours = false;
      for (JsonNode f : meta.path("finalizers")) {
        ours |= TERMINATION_FINALIZER.equals(f.asText());
      }
      String phase = pod.path("status").path("phase").asText("");
      // as the API server's CheckGracefulDelete: a pod no kubelet runs, or that has finished,
      // goes at once
      boolean immediate =
          gracePeriod(request) == 0
              || pod.path("spec").path("nodeName").asText("").isEmpty()
              || phase.equals("Succeeded")
              || phase.equals("Failed");
      if (immediate) {
        if (ours) {
          com.fasterxml.jackson.databind.node.ArrayNode kept = mapper.createArrayNode();
          meta.path("finalizers")
              .forEach(
                  f -> {
                    if (!TERMINATION_FINALIZER.equals(f.asText())) {
                      kept.add(f);
                    }
                  });
          meta.set("finalizers", kept);
          super.dispatch(rewrite(HttpMethod.PUT, api.objectPath(), pod.toString()));
        }
        if (handleGet(api.objectPath()).code() == 200) {
          super.handleDelete(api.objectPath());
        }
        return json(200, pod.toString());
      }
      if (meta.has("deletionTimestamp")) {
        return json(200, pod.toString());
      }
      if (!ours) {
        com.fasterxml.jackson.databind.node.ArrayNode finalizers =
            meta.has("finalizers") && meta.get("finalizers").isArray()
                ? (com.fasterxml.jackson.databind.node.ArrayNode) meta.get("finalizers")
                : meta.putArray("finalizers");
        finalizers.add(TERMINATION_FINALIZER);
        MockResponse put =
            super.dispatch(rewrite(HttpMethod.PUT, api.objectPath(), pod.toString()));
        if (put.code() >= 300) {
          return put;
        }
      }
      MockResponse deleted = super.handleDelete(api.objectPath());
      MockResponse now = handleGet(api.objectPath());
      return now.code() == 200 ? json(200, now.getBody().readUtf8()) : deleted;
    }
  }

  /** The grace period a delete asks for (query or DeleteOptions body), or -1 when it asks none. */
  private long gracePeriod(RecordedRequest request) {
    String path = request.getPath();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("[?&]gracePeriodSeconds=(\\d+)").matcher(path);
    if (m.find()) {
      return Long.parseLong(m.group(1));
    }
    try {
      String body = request.getUtf8Body();
      if (body != null && !body.isBlank()) {
        JsonNode options = mapper.readTree(body);
        if (options.has("gracePeriodSeconds")) {
          return options.get("gracePeriodSeconds").asLong();
        }
      }
    } catch (Exception e) {
      // not DeleteOptions: no grace period asked
    }
    return -1;
  }

  /**
   * The {@code pods/binding} subresource (also {@code POST bindings}), as the scheduler uses it:
   * sets {@code spec.nodeName} of a pod that has none, and its PodScheduled condition True. A pod
   * already bound or being deleted is a 409, as on a real server; the spec of a bound pod stays
   * immutable to everyone else (see CoreValidation).
   */
  private MockResponse bind(String namespace, String name, JsonNode binding) throws Exception {
    String node = binding.path("target").path("name").asText("");
    if (node.isEmpty()) {
      return status(
          422, "Invalid", "Binding \"" + name + "\" is invalid: target.name: Required value");
    }
    String objectPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    synchronized (compositeWrites) {
      MockResponse current = handleGet(objectPath);
      if (current.code() != 200) {
        return status(404, "NotFound", "pods \"" + name + "\" not found");
      }
      ObjectNode pod = (ObjectNode) mapper.readTree(current.getBody().readUtf8());
      String conflict = null;
      if (pod.path("metadata").has("deletionTimestamp")) {
        conflict = "pod " + name + " is being deleted, cannot be assigned to a host";
      } else if (!pod.path("spec").path("nodeName").asText("").isEmpty()) {
        conflict =
            "pod "
                + name
                + " is already assigned to node \""
                + pod.path("spec").path("nodeName").asText()
                + "\"";
      }
      if (conflict != null) {
        return status(
            409,
            "Conflict",
            "Operation cannot be fulfilled on pods/binding \"" + name + "\": " + conflict);
      }
      ((ObjectNode) pod.path("spec")).put("nodeName", node);
      MockResponse put = super.dispatch(rewrite(HttpMethod.PUT, objectPath, pod.toString()));
      if (put.code() >= 300) {
        return put;
      }
      ObjectNode stored = (ObjectNode) mapper.readTree(put.getBody().readUtf8());
      ObjectNode st =
          stored.path("status").isObject()
              ? (ObjectNode) stored.get("status")
              : stored.putObject("status");
      com.fasterxml.jackson.databind.node.ArrayNode conditions = mapper.createArrayNode();
      for (JsonNode c : st.path("conditions")) {
        if (!"PodScheduled".equals(c.path("type").asText())) {
          conditions.add(c);
        }
      }
      conditions
          .addObject()
          .put("type", "PodScheduled")
          .put("status", "True")
          .put(
              "lastTransitionTime",
              java.time.Instant.now()
                  .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                  .toString());
      st.set("conditions", conditions);
      super.dispatch(rewrite(HttpMethod.PUT, objectPath + "/status", stored.toString()));
      return json(201, success(201).toString());
    }
  }

  private ObjectNode success(int code) {
    ObjectNode s = mapper.createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Success");
    s.put("code", code);
    return s;
  }

  /**
   * The {@code pods/eviction} subresource (policy/v1 Eviction), as {@code kubectl drain} uses it: a
   * pod that is Pending, finished or already being deleted is deleted at once; otherwise the
   * PodDisruptionBudget of its namespace that selects it (more than one: 500, as the real server)
   * must allow a disruption: its status must have been computed for its generation and say {@code
   * disruptionsAllowed} above 0, which the eviction then decrements (so that two evictions do not
   * both spend the last one); else 429 TooManyRequests with the real message and cause. The delete
   * is graceful, with the Eviction's deleteOptions.
   */
  private MockResponse evict(ApiPath api, JsonNode eviction) throws Exception {
    String objectPath = api.objectPath();
    synchronized (compositeWrites) {
      MockResponse current = handleGet(objectPath);
      if (current.code() != 200) {
        return status(404, "NotFound", "pods \"" + api.name() + "\" not found");
      }
      JsonNode pod = mapper.readTree(current.getBody().readUtf8());
      String phase = pod.path("status").path("phase").asText("Pending");
      boolean ignoreBudget =
          pod.path("metadata").has("deletionTimestamp")
              || List.of("Pending", "Succeeded", "Failed").contains(phase);
      if (!ignoreBudget) {
        List<JsonNode> budgets = new ArrayList<>();
        MockResponse pdbs =
            handleGet("/apis/policy/v1/namespaces/" + api.namespace() + "/poddisruptionbudgets");
        if (pdbs.code() == 200) {
          for (JsonNode pdb : mapper.readTree(pdbs.getBody().readUtf8()).path("items")) {
            if (io.etcdoperator.sandbox.controller.Selectors.matches(
                pdb.path("spec").path("selector"), pod.path("metadata").path("labels"))) {
              budgets.add(pdb);
            }
          }
        }
        if (budgets.size() > 1) {
          return status(
              500,
              "InternalError",
              "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
                  + " not support.");
        }
        if (budgets.size() == 1) {
          ObjectNode pdb = (ObjectNode) budgets.get(0);
          JsonNode st = pdb.path("status");
          long generation = pdb.path("metadata").path("generation").asLong(0);
          String cause = null;
          if (!st.has("observedGeneration")
              || st.path("observedGeneration").asLong() < generation) {
            cause =
                "observedGeneration must be at least "
                    + generation
                    + " (received "
                    + st.path("observedGeneration").asLong(0)
                    + ")";
          } else if (!podReady(pod)
              && ("AlwaysAllow".equals(pdb.path("spec").path("unhealthyPodEvictionPolicy").asText())
                  || st.path("desiredHealthy").asInt(0) > 0
                      && st.path("currentHealthy").asInt(0)
                          >= st.path("desiredHealthy").asInt(0))) {
            // an unready pod does not count as healthy: evicting it spends nothing
            budgets.clear();
          } else if (st.path("disruptionsAllowed").asInt(0) <= 0) {
            cause =
                "The disruption budget "
                    + pdb.path("metadata").path("name").asText()
                    + " needs "
                    + st.path("desiredHealthy").asInt(0)
                    + " healthy pods and has "
                    + st.path("currentHealthy").asInt(0)
                    + " currently";
          }
          if (cause != null) {
            ObjectNode s =
                statusNode(
                    429,
                    "TooManyRequests",
                    "Cannot evict pod as it would violate the pod's disruption budget.");
            s.putObject("details")
                .putArray("causes")
                .addObject()
                .put("reason", "DisruptionBudget")
                .put("message", cause);
            return json(429, s.put("code", 429).toString());
          }
          if (budgets.isEmpty()) {
            return deleteEvicted(objectPath, eviction);
          }
          ((ObjectNode) st).put("disruptionsAllowed", st.path("disruptionsAllowed").asInt() - 1);
          String pdbPath =
              "/apis/policy/v1/namespaces/"
                  + api.namespace()
                  + "/poddisruptionbudgets/"
                  + pdb.path("metadata").path("name").asText()
                  + "/status";
          MockResponse put = super.dispatch(rewrite(HttpMethod.PUT, pdbPath, pdb.toString()));
          if (put.code() >= 300) {
            return put;
          }
        }
      }
      return deleteEvicted(objectPath, eviction);
    }
  }

  private MockResponse deleteEvicted(String objectPath, JsonNode eviction) throws Exception {
    JsonNode options = eviction.path("deleteOptions");
    String deletePath = objectPath;
    if (options.has("gracePeriodSeconds")) {
      deletePath += "?gracePeriodSeconds=" + options.get("gracePeriodSeconds").asLong();
    }
    MockResponse deleted =
        deletePod(rewrite(HttpMethod.DELETE, deletePath, ""), ApiPath.parse(objectPath));
    if (deleted.code() >= 300) {
      return deleted;
    }
    return json(201, success(201).toString());
  }

  private static boolean podReady(JsonNode pod) {
    for (JsonNode c : pod.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
        return true;
      }
    }
    return false;
  }

  private MockResponse control(String verb, String body) {
    ControlHandler h = control;
    if (h == null) {
      return status(503, "ServiceUnavailable", "this sandbox takes no control requests");
    }
    try {
      return json(200, mapper.createObjectNode().put("message", h.handle(verb, body)).toString());
    } catch (IllegalArgumentException e) {
      return status(404, "NotFound", e.getMessage());
    } catch (Exception e) {
      return status(500, "InternalError", String.valueOf(e.getMessage()));
    }
  }

  /**
   * A delete that orphans the object's dependents ({@code propagationPolicy: Orphan}, in the
   * DeleteOptions body or the query; {@code orphanDependents: true}), as {@code kubectl delete
   * --cascade=orphan} sends it.
   */
  private boolean orphaning(RecordedRequest request, String path) {
    if (path.contains("propagationPolicy=Orphan") || path.contains("orphanDependents=true")) {
      return true;
    }
    // getBytes() leaves the body to whoever reads it next (getUtf8Body() consumes it).
    String body =
        request.getBody() == null
            ? ""
            : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (body.isBlank()) {
      return false;
    }
    try {
      JsonNode options = mapper.readTree(body);
      return "Orphan".equals(options.path("propagationPolicy").asText())
          || options.path("orphanDependents").asBoolean(false);
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Orphan propagation, as the garbage collector does it before the owner goes: every object of the
   * owner's namespace that names it as an owner loses that reference (and with it, for pods, their
   * controller), so that deleting the owner deletes nothing else.
   */
  private void orphanDependents(ApiPath api) throws Exception {
    synchronized (compositeWrites) {
      MockResponse current = handleGet(api.objectPath());
      if (current.code() != 200) {
        return;
      }
      String uid = mapper.readTree(current.getBody().readUtf8()).at("/metadata/uid").asText();
      if (uid.isEmpty() || api.namespace() == null) {
        return;
      }
      for (ResourceType t : BuiltInTypes.ALL) {
        if (!t.namespaced() || t.plural().equals("events")) {
          continue;
        }
        String list = t.prefix() + "/namespaces/" + api.namespace() + "/" + t.plural();
        MockResponse items = handleGet(list);
        if (items.code() != 200) {
          continue;
        }
        for (JsonNode item : mapper.readTree(items.getBody().readUtf8()).path("items")) {
          JsonNode refs = item.at("/metadata/ownerReferences");
          if (!refs.isArray() || refs.isEmpty()) {
            continue;
          }
          com.fasterxml.jackson.databind.node.ArrayNode kept = mapper.createArrayNode();
          refs.forEach(
              r -> {
                if (!uid.equals(r.path("uid").asText())) {
                  kept.add(r);
                }
              });
          if (kept.size() == refs.size()) {
            continue;
          }
          ObjectNode updated = (ObjectNode) item.deepCopy();
          ObjectNode meta = (ObjectNode) updated.path("metadata");
          if (kept.isEmpty()) {
            meta.remove("ownerReferences");
          } else {
            meta.set("ownerReferences", kept);
          }
          updated.put("apiVersion", t.groupVersion()).put("kind", t.kind());
          String itemPath = list + "/" + item.at("/metadata/name").asText();
          super.dispatch(rewrite(HttpMethod.PUT, itemPath, updated.toString()));
        }
      }
    }
  }

  private static boolean isStrategic(RecordedRequest request) {
    return contentType(request).contains("strategic-merge-patch");
  }

  private static String contentType(RecordedRequest request) {
    String ct = request.getHeader("Content-Type");
    return ct == null ? "" : ct;
  }

  private static RecordedRequest rewrite(HttpMethod method, String path, String body) {
    Headers headers = Headers.builder().add("Content-Type", "application/json").build();
    return new RecordedRequest("HTTP/1.1", method, path, headers, new Buffer().writeUtf8(body));
  }

  private MockResponse orNotFound(String body) {
    return body == null
        ? status(404, "NotFound", "the server could not find the requested resource")
        : json(200, body);
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(body);
  }

  static MockResponse status(int code, String reason, String message) {
    return json(code, statusNode(code, reason, message).put("code", code).toString());
  }

  /** A failure Status as a real API server writes it (details, when any, go before code). */
  static ObjectNode statusNode(int code, String reason, String message) {
    ObjectNode s = Serialization.jsonMapper().createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", message);
    s.put("reason", reason);
    return s;
  }

  /** Reads dotted JSON paths ({@code .spec.replicas}); used for scale subresources. */
  static final class Scales {
    private Scales() {}

    static ObjectNode toScale(ObjectMapper mapper, JsonNode object, ResourceType.Scale scale) {
      ObjectNode s = mapper.createObjectNode();
      s.put("kind", "Scale");
      s.put("apiVersion", "autoscaling/v1");
      ObjectNode meta = s.putObject("metadata");
      JsonNode m = object.path("metadata");
      for (String f : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
        if (m.has(f)) {
          meta.set(f, m.get(f));
        }
      }
      s.putObject("spec").put("replicas", get(object, scale.specReplicasPath()).asInt(0));
      ObjectNode status = s.putObject("status");
      status.put("replicas", get(object, scale.statusReplicasPath()).asInt(0));
      JsonNode selector = get(object, scale.labelSelectorPath());
      if (selector.isTextual()) {
        status.put("selector", selector.asText());
      } else if (object.path("spec").path("selector").path("matchLabels").isObject()) {
        StringBuilder b = new StringBuilder();
        Iterator<Map.Entry<String, JsonNode>> it =
            object.path("spec").path("selector").path("matchLabels").fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          b.append(b.length() == 0 ? "" : ",")
              .append(e.getKey())
              .append('=')
              .append(e.getValue().asText());
        }
        status.put("selector", b.toString());
      }
      return s;
    }

    static JsonNode get(JsonNode object, String path) {
      JsonNode n = object;
      if (path == null) {
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
      }
      for (String part : path.substring(1).split("\\.")) {
        n = n.path(part);
      }
      return n;
    }

    static void set(ObjectNode object, String path, JsonNode value) {
      String[] parts = path.substring(1).split("\\.");
      ObjectNode n = object;
      for (int i = 0; i < parts.length - 1; i++) {
        n =
            n.has(parts[i]) && n.get(parts[i]).isObject()
                ? (ObjectNode) n.get(parts[i])
                : n.putObject(parts[i]);
      }
      n.set(parts[parts.length - 1], value);
    }
  }
}
