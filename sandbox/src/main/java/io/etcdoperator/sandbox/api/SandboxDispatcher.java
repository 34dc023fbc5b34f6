package io.etcdoperator.sandbox.api;

import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import io.etcdoperator.sandbox.api.admission.AdmissionChain;
import io.etcdoperator.sandbox.api.admission.DefaultTolerations;
import io.etcdoperator.sandbox.api.auth.AuthenticationFilter;
import io.etcdoperator.sandbox.api.auth.Authenticator;
import io.etcdoperator.sandbox.api.auth.AuthorizationFilter;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's API server, as fabric8's mock web server calls it: fabric8's CRUD mock (the {@link
 * Store}) completed where clients of a real API server notice its absence, and put behind what a
 * real server puts before its storage, in a real server's order:
 *
 * <ol>
 *   <li>a body in Kubernetes' protobuf encoding read as JSON ({@link ProtobufBodies});
 *   <li>authentication ({@link AuthenticationFilter}): a bearer token, else 401; then the faults a
 *       test asked for, if any ({@link ApiFaults});
 *   <li>authorization ({@link AuthorizationFilter}): RBAC for every user but the administrator,
 *       else 403;
 *   <li>the {@link Router}'s table, which hands the request to one handler: discovery, the
 *       subresources the mock lacks, graceful deletion, patches, and writes, which pass the {@link
 *       AdmissionChain} before the store; everything else goes to the store as the mock serves it.
 * </ol>
 *
 * <p>A write to the RBAC group or to CRDs makes the caches that depend on them read the store
 * again.
 */
public final class SandboxDispatcher extends Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxDispatcher.class);

  private final Store store = new Store();
  private final ServedTypes types = new ServedTypes(store);
  private final Authenticator authenticator = new Authenticator();
  private final AuthenticationFilter authentication = new AuthenticationFilter(authenticator);
  private final RbacAuthorizer authorizer = new RbacAuthorizer(store);
  private final AuthorizationFilter authorization = new AuthorizationFilter(authorizer);
  private final DefaultTolerations tolerations = new DefaultTolerations();
  private final ApiFaults faults = new ApiFaults();
  private final Router router =
      new Router(
          store,
          types,
          AdmissionChain.standard(store, types, authorizer, tolerations),
          authorizer,
          authenticator);

  void setServerAddress(String hostPort) {
    router.discovery().setServerAddress(hostPort);
  }

  /** The tolerationSeconds the DefaultTolerationSeconds admission gives new pods. */
  void setDefaultTolerationSeconds(long seconds) {
    tolerations.setSeconds(seconds);
  }

  void setLogSource(LogSource logs) {
    router.logs().setLogSource(logs);
  }

  void setControlHandler(ControlHandler handler) {
    router.control().setControlHandler(handler);
  }

  void setPodProcesses(PodProcesses pods) {
    router.streaming().setPodProcesses(pods);
  }

  /** The tokens this server accepts, and whose they are. */
  Authenticator authenticator() {
    return authenticator;
  }

  /** What a (non-administrator) user has asked for so far. */
  RbacUsage usage(Identity user) {
    return authorizer.usage(user);
  }

  /** Built-in types followed by those of every stored CRD. */
  List<ResourceType> types() throws Exception {
    return types.all();
  }

  /** One object as a Table of one row, as a watch that asked for Tables sends it. */
  JsonNode tableOf(ApiPath api, JsonNode object) {
    return router.tables().tableOf(api, object);
  }

  /** Faults the server injects into its answers to one user. */
  ApiFaults faults() {
    return faults;
  }

  @Override
  public MockResponse dispatch(RecordedRequest received) {
    RecordedRequest request;
    try {
      request = ProtobufBodies.asJson(received);
    } catch (InvalidProtocolBufferException e) {
      return status(400, "BadRequest", "the protobuf body cannot be read: " + e.getMessage());
    }
    return authentication.filter(
        request, user -> faults.filter(user, request, () -> dispatchAs(user, request)));
  }

  /** Handles a request as the given user (already authenticated): authorization, then routing. */
  MockResponse dispatchAs(Identity user, RecordedRequest request) {
    try {
      return authorization.filter(ApiRequest.of(user, request), this::route);
    } catch (Exception e) {
      LOG.warn("{} {} failed", request.getMethod(), request.getPath(), e);
      return status(500, "InternalError", String.valueOf(e));
    }
  }

  private MockResponse route(ApiRequest request) throws Exception {
    MockResponse r = router.handle(request);
    if (r.getWebSocketListener() == null && r.header("Content-Type") == null) {
      // without it, clients that asked for protobuf (kubectl) try to decode the JSON as protobuf
      r.setHeader("Content-Type", "application/json");
    }
    if (request.info().resourceRequest() && request.method() != HttpMethod.GET) {
      if (RbacAuthorizer.GROUP.equals(request.info().group())) {
        authorizer.invalidate();
      } else if ("customresourcedefinitions".equals(request.info().resource())) {
        types.invalidate();
      }
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug("{} {} -> {}", request.method(), request.path(), r.code());
    }
    return r;
  }

  @Override
  public void shutdown() {
    store.shutdown();
  }
}
