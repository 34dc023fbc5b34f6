package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A custom resource (or its status) against its CRD's schema for the version written: unknown
 * fields pruned, defaults applied, then the schema's constraints and CEL rules (see {@link
 * StructuralSchema}). On the status subresource the stored spec replaces the one sent, as a real
 * server ignores it there, so the stored spec is what is validated. The schema is taken from the
 * stored CRD and kept until a CRD is written.
 */
final class CustomResourceAdmission implements AdmissionPlugin {
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final Store store;
  private final ServedTypes types;
  private final Map<String, StructuralSchema> schemas = new ConcurrentHashMap<>();

  CustomResourceAdmission(Store store, ServedTypes types) {
    this.store = store;
    this.types = types;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    ApiPath api = a.api();
    if (!a.customResource() || api.subresource() != null && !api.subresource().equals("status")) {
      return null;
    }
    StructuralSchema schema = schema(api);
    if (schema != null) {
      ObjectNode object = a.object();
      JsonNode old = a.old();
      if ("status".equals(api.subresource()) && old != null && old.has("spec")) {
        object.set("spec", old.get("spec"));
      }
      schema.pruneAndDefault(object);
      a.errors(schema.validate(object, old));
    }
    return null;
  }

  private StructuralSchema schema(ApiPath api) throws Exception {
    long version = types.version();
    String key = version + " " + api.group() + "/" + api.version() + "/" + api.plural();
    StructuralSchema cached = schemas.get(key);
    if (cached != null) {
      return cached;
    }
    MockResponse r = store.get(ServedTypes.CRD_LIST);
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
}
