package io.etcdoperator.sandbox.api.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * A collection read answered with the kind a real API server gives its lists ({@code SecretList},
 * {@code EtcdClusterList}, ...) and the type's group and version, instead of the mock's {@code
 * List}: a typed client (client-go's, which Helm reads its releases with) decodes a {@code List}
 * into its typed list as empty, without an error, and Helm then found no release to uninstall.
 */
public final class ListKinds implements Handler {
  private final ObjectMapper mapper = new ObjectMapper();
  private final ServedTypes types;
  private final Handler inner;

  public ListKinds(ServedTypes types, Handler inner) {
    this.types = types;
    this.inner = inner;
  }

  @Override
  public MockResponse handle(ApiRequest r) throws Exception {
    MockResponse response = inner.handle(r);
    ApiPath api = r.api();
    if (r.method() != HttpMethod.GET
        || api == null
        || api.plural() == null
        || api.name() != null
        || api.subresource() != null
        || response.code() != 200
        || r.path().contains("watch=")) {
      return response;
    }
    ResourceType type = types.type(api);
    if (type == null || response.getBody() == null) {
      return response;
    }
    String body = response.getBody().readUtf8();
    JsonNode list = mapper.readTree(body);
    if (!list.isObject() || !"List".equals(list.path("kind").asText())) {
      return Responses.json(200, body);
    }
    ((ObjectNode) list).put("kind", type.kind() + "List");
    ((ObjectNode) list).put("apiVersion", type.groupVersion());
    return Responses.json(200, list.toString());
  }
}
