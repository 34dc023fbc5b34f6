package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;
import static io.etcdoperator.sandbox.api.Responses.orNotFound;
import static io.etcdoperator.sandbox.api.Responses.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Discovery;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.OpenApi;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Set;

/**
 * What clients read before anything else, answered from the built-in types plus the CRDs stored
 * now, so that kubectl and fabric8 find every resource: the discovery documents ({@code /api},
 * {@code /api/v1}, {@code /apis}, {@code /apis/<g>}, {@code /apis/<g>/<v>}, see {@link Discovery}),
 * {@code /version}, and {@code /openapi/v3}, just enough for kubectl to validate on the server (see
 * {@link OpenApi}); {@code /openapi/v2} is a 404.
 */
public final class DiscoveryHandler implements Handler {
  private static final String VERSION =
      "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-sandbox\","
          + "\"gitCommit\":\"sandbox\",\"gitTreeState\":\"clean\",\"buildDate\":\"2025-01-01T00:00:00Z\","
          + "\"goVersion\":\"go1.23\",\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}";
  private static final Set<String> FIXED =
      Set.of("/version", "/api", "/apis", "/openapi/v2", "/openapi/v3");

  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Discovery discovery = new Discovery(mapper);
  private final OpenApi openApi = new OpenApi(mapper);
  private final ServedTypes types;
  private volatile String serverAddress = "127.0.0.1:443";

  public DiscoveryHandler(ServedTypes types) {
    this.types = types;
  }

  /** The address {@code /api} gives clients. */
  public void setServerAddress(String hostPort) {
    this.serverAddress = hostPort;
  }

  /** Whether a path (without query or trailing slash) is one this handler answers. */
  public static boolean serves(String bare) {
    if (FIXED.contains(bare) || bare.startsWith("/openapi/v3/")) {
      return true;
    }
    String[] parts = bare.substring(1).split("/");
    return parts.length == 2 && (parts[0].equals("api") || parts[0].equals("apis"))
        || parts.length == 3 && parts[0].equals("apis");
  }

  @Override
  public MockResponse handle(ApiRequest request) throws Exception {
    String bare = request.bare();
    switch (bare) {
      case "/version":
        return json(200, VERSION);
      case "/api":
        return json(200, discovery.apiVersions(serverAddress));
      case "/apis":
        return json(200, discovery.groupList(types.all()));
      case "/openapi/v2":
        return status(404, "NotFound", "the sandbox serves no OpenAPI v2 document");
      case "/openapi/v3":
        return json(200, openApi.root(types.all()));
      default:
        break;
    }
    if (bare.startsWith("/openapi/v3/")) {
      return orNotFound(openApi.groupVersion(types.all(), bare.substring("/openapi/v3/".length())));
    }
    String[] parts = bare.substring(1).split("/");
    if (parts.length == 2 && parts[0].equals("api")) {
      return orNotFound(discovery.resourceList(types.all(), "", parts[1]));
    }
    if (parts.length == 2) {
      return orNotFound(discovery.group(types.all(), parts[1]));
    }
    return orNotFound(discovery.resourceList(types.all(), parts[1], parts[2]));
  }
}
