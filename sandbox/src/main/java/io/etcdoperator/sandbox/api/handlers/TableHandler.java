package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.Tables;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * Server-side printing, which kubectl asks for ({@code Accept: ...;as=Table}) and the mock lacks:
 * wrapped around a handler of reads, it turns the object or list that handler answers into a Table
 * (see {@link Tables}) when the client asked for one; a watch's events are turned into rows one by
 * one ({@link #tableOf}), by the kubectl front that serves them.
 */
public final class TableHandler {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Tables tables = new Tables(mapper);
  private final ServedTypes types;

  public TableHandler(ServedTypes types) {
    this.types = types;
  }

  /** {@code inner}, its successful GETs answered as Tables when the client asked for one. */
  public Handler around(Handler inner) {
    return request -> {
      MockResponse r = inner.handle(request);
      if (request.method() == HttpMethod.GET
          && request.api() != null
          && r.code() == 200
          && request.wantsTable()
          && r.getWebSocketListener() == null) {
        return asTable(request.api(), r);
      }
      return r;
    };
  }

  /** One object as a Table of one row, as a watch that asked for Tables sends it. */
  public JsonNode tableOf(ApiPath api, JsonNode object) {
    try {
      ResourceType type = types.type(api);
      return type == null ? object : mapper.readTree(tables.table(type, object));
    } catch (Exception e) {
      return object;
    }
  }

  private MockResponse asTable(ApiPath api, MockResponse r) throws Exception {
    ResourceType type = null;
    for (ResourceType t : types.all()) {
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
}
