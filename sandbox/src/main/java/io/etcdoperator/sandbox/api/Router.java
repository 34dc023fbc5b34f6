package io.etcdoperator.sandbox.api;

import static io.fabric8.mockwebserver.dsl.HttpMethod.DELETE;
import static io.fabric8.mockwebserver.dsl.HttpMethod.GET;
import static io.fabric8.mockwebserver.dsl.HttpMethod.PATCH;
import static io.fabric8.mockwebserver.dsl.HttpMethod.POST;
import static io.fabric8.mockwebserver.dsl.HttpMethod.PUT;

import io.etcdoperator.sandbox.api.admission.AdmissionChain;
import io.etcdoperator.sandbox.api.auth.Authenticator;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.etcdoperator.sandbox.api.handlers.AccessReviewHandler;
import io.etcdoperator.sandbox.api.handlers.BindingHandler;
import io.etcdoperator.sandbox.api.handlers.ControlRequestHandler;
import io.etcdoperator.sandbox.api.handlers.DeletionHandler;
import io.etcdoperator.sandbox.api.handlers.DiscoveryHandler;
import io.etcdoperator.sandbox.api.handlers.EvictionHandler;
import io.etcdoperator.sandbox.api.handlers.FieldSelectorHandler;
import io.etcdoperator.sandbox.api.handlers.ListKinds;
import io.etcdoperator.sandbox.api.handlers.LogHandler;
import io.etcdoperator.sandbox.api.handlers.PatchHandler;
import io.etcdoperator.sandbox.api.handlers.ProxyHandler;
import io.etcdoperator.sandbox.api.handlers.RulesReviewHandler;
import io.etcdoperator.sandbox.api.handlers.ScaleHandler;
import io.etcdoperator.sandbox.api.handlers.StreamingHandler;
import io.etcdoperator.sandbox.api.handlers.TableHandler;
import io.etcdoperator.sandbox.api.handlers.TokenRequestHandler;
import io.etcdoperator.sandbox.api.handlers.WriteHandler;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Where an authorized request goes: an ordered table of routes, each a matcher and a handler; the
 * first route whose matcher takes the request handles it, and the last takes everything (the store,
 * as the mock serves it). The order matters and is all here: the sandbox's own requests and
 * discovery before any API path; subresources the mock lacks before the catch-all 404 for other
 * subresources ({@code status} passes it); the strategic merge patch before the JSON merge patch
 * (its media type contains the other's); writes, which pass admission, before the store.
 */
final class Router implements Handler {
  /** One entry of the table: what it is, which requests it takes, who handles them. */
  record Route(String name, Predicate<ApiRequest> matches, Handler handler) {}

  private static final List<String> STREAMING = List.of("exec", "attach", "portforward");

  private final ControlRequestHandler control = new ControlRequestHandler();
  private final LogHandler logs = new LogHandler();
  private final StreamingHandler streaming = new StreamingHandler();
  private final DiscoveryHandler discovery;
  private final TableHandler tables;
  private final List<Route> routes;

  Router(
      Store store,
      ServedTypes types,
      AdmissionChain admission,
      RbacAuthorizer authorizer,
      Authenticator authenticator) {
    discovery = new DiscoveryHandler(types);
    tables = new TableHandler(types);
    DeletionHandler deletion = new DeletionHandler(store);
    PatchHandler patches = new PatchHandler(store, admission);
    routes =
        List.of(
            new Route(
                "sandbox control",
                r -> r.method() == POST && ControlRequestHandler.serves(r.bare()),
                control),
            new Route(
                "discovery, /version, /openapi",
                r -> r.method() == GET && DiscoveryHandler.serves(r.bare()),
                discovery),
            new Route(
                "*/scale",
                r -> subresource(r, "scale") && r.api().name() != null,
                new ScaleHandler(store, types)),
            new Route(
                "pods/log",
                r -> subresource(r, "log") && plural(r, "pods") && r.method() == GET,
                logs),
            new Route(
                "pods/exec, pods/attach, pods/portforward",
                r ->
                    plural(r, "pods")
                        && r.api().name() != null
                        && r.api().subresource() != null
                        && STREAMING.contains(r.api().subresource()),
                streaming),
            new Route(
                "pods/proxy",
                r ->
                    plural(r, "pods")
                        && core(r)
                        && r.api().name() != null
                        && subresource(r, "proxy"),
                new ProxyHandler(store)),
            new Route(
                "events and pods listed by field selector",
                r ->
                    r.method() == GET
                        && core(r)
                        && r.api().name() == null
                        && (plural(r, "events") || plural(r, "pods"))
                        && !r.path().contains("watch=true")
                        && r.path().contains("fieldSelector="),
                tables.around(new FieldSelectorHandler(store))),
            new Route(
                "pods/binding, bindings",
                r ->
                    r.method() == POST
                        && core(r)
                        && r.api().namespace() != null
                        && (plural(r, "pods") && subresource(r, "binding")
                            || plural(r, "bindings") && r.api().name() == null),
                new BindingHandler(store)),
            new Route(
                "pods/eviction",
                r ->
                    r.method() == POST
                        && core(r)
                        && plural(r, "pods")
                        && subresource(r, "eviction"),
                new EvictionHandler(store, deletion)),
            new Route(
                "serviceaccounts/token",
                r ->
                    r.method() == POST
                        && core(r)
                        && plural(r, "serviceaccounts")
                        && r.api().name() != null
                        && subresource(r, "token"),
                new TokenRequestHandler(store, authenticator)),
            new Route(
                "delete of one object",
                r ->
                    r.method() == DELETE
                        && r.api() != null
                        && r.api().name() != null
                        && r.api().subresource() == null,
                deletion),
            new Route(
                "other subresources",
                r -> r.api() != null && r.api().subresource() != null && !subresource(r, "status"),
                Router::unknownSubresource),
            new Route(
                "selfsubjectrulesreviews",
                r ->
                    r.method() == POST
                        && r.api() != null
                        && "authorization.k8s.io".equals(r.api().group())
                        && plural(r, "selfsubjectrulesreviews"),
                new RulesReviewHandler(authorizer)),
            new Route(
                "selfsubjectaccessreviews",
                r ->
                    r.method() == POST
                        && r.api() != null
                        && "authorization.k8s.io".equals(r.api().group())
                        && plural(r, "selfsubjectaccessreviews"),
                new AccessReviewHandler(authorizer)),
            new Route(
                "strategic merge patch",
                r -> r.method() == PATCH && r.contentType().contains("strategic-merge-patch"),
                patches.with(StrategicMerge::apply)),
            new Route(
                "JSON merge patch",
                r -> r.method() == PATCH && r.contentType().contains("merge-patch+json"),
                patches.with(JsonMergePatch::apply)),
            new Route(
                "JSON patch",
                r -> r.method() == PATCH && r.contentType().contains("json-patch+json"),
                patches.with((object, patch) -> JsonPatch.apply(patch, object))),
            new Route(
                "create, update (of objects and of status)",
                r ->
                    (r.method() == POST || r.method() == PUT)
                        && r.api() != null
                        && r.api().plural() != null,
                new WriteHandler(store, admission)),
            new Route(
                "the store",
                r -> true,
                tables.around(new ListKinds(types, r -> store.dispatch(r.request())))));
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    for (Route route : routes) {
      if (route.matches().test(request)) {
        return route.handler().handle(request);
      }
    }
    throw new IllegalStateException("no route for " + request.path());
  }

  /** The table's entries, in order. */
  @Override
  public String toString() {
    return routes.stream().map(Route::name).collect(Collectors.joining(" | "));
  }

  ControlRequestHandler control() {
    return control;
  }

  LogHandler logs() {
    return logs;
  }

  StreamingHandler streaming() {
    return streaming;
  }

  DiscoveryHandler discovery() {
    return discovery;
  }

  TableHandler tables() {
    return tables;
  }

  private static boolean subresource(ApiRequest r, String subresource) {
    return r.api() != null && subresource.equals(r.api().subresource());
  }

  private static boolean plural(ApiRequest r, String plural) {
    return r.api() != null && plural.equals(r.api().plural());
  }

  private static boolean core(ApiRequest r) {
    return r.api() != null && r.api().group().isEmpty();
  }

  private static MockResponse unknownSubresource(ApiRequest r) {
    return Responses.status(
        404,
        "NotFound",
        "the sandbox does not serve " + r.api().plural() + "/" + r.api().subresource());
  }
}
