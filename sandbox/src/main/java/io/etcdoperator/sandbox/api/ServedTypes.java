package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The resource types the server serves now: the built-in kinds followed by those of every stored
 * CRD. Every write is admitted by its type, so the list is read from the store only again after a
 * CRD was written ({@link #invalidate}); what depends on the CRDs caches by {@link #version}.
 */
public final class ServedTypes {
  /** Where the stored CRDs are listed. */
  public static final String CRD_LIST = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  private final Store store;
  private final ObjectMapper mapper = Serialization.jsonMapper();
  private final AtomicLong crdVersion = new AtomicLong();
  private volatile TypesAt cache;

  public ServedTypes(Store store) {
    this.store = store;
  }

  /** The resource types as of a CRD version. */
  private record TypesAt(long version, List<ResourceType> types) {}

  /** Built-in types followed by those of every stored CRD. */
  public List<ResourceType> all() throws Exception {
    long version = crdVersion.get();
    var cached = cache;
    if (cached != null && cached.version() == version) {
      return cached.types();
    }
    List<ResourceType> all = new ArrayList<>(BuiltInTypes.ALL);
    MockResponse r = store.get(CRD_LIST);
    if (r.code() == 200) {
      JsonNode items = mapper.readTree(r.getBody().readUtf8()).path("items");
      for (JsonNode item : items) {
        all.addAll(CrdTypes.types(mapper.treeToValue(item, CustomResourceDefinition.class)));
      }
    }
    cache = new TypesAt(version, List.copyOf(all));
    return cache.types();
  }

  /** The served type of an API path (the first that matches), or null. */
  public ResourceType type(ApiPath api) throws Exception {
    for (ResourceType t : all()) {
      if (t.group().equals(api.group())
          && t.version().equals(api.version())
          && t.plural().equals(api.plural())) {
        return t;
      }
    }
    return null;
  }

  /** Changes whenever a CRD may have been written. */
  public long version() {
    return crdVersion.get();
  }

  /** A CRD was (or may have been) written: read the types again when next asked. */
  public void invalidate() {
    crdVersion.incrementAndGet();
  }
}
