package io.etcdoperator.sandbox.api.store;

import io.etcdoperator.sandbox.api.BuiltInTypes;
import io.etcdoperator.sandbox.api.ResourceType;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesResponseComposer;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API server's storage: fabric8's CRUD mock server (objects in memory, resourceVersions,
 * watches, finalizers, status subresources, 409 on a stale resourceVersion), with no
 * authentication, authorization or admission of its own. It is the only class that knows the mock's
 * internals.
 *
 * <p>Two things reach into them. The mock keeps every object in one map and compares a query with
 * every key, so at a thousand clusters each read cost a scan of everything: its private map is
 * replaced, by reflection while still empty, with one indexed by name and by resource type ({@link
 * NamedObjects}), and one object or one type's list is answered from the index under the mock's own
 * lock and with its own resourceVersion (both private fields too). And built-in kinds with a status
 * subresource are registered as such, so that an update of an object keeps its status and an update
 * of {@code /status} keeps the rest, as on a real server.
 *
 * <p>Handlers that read an object, change it and write it back do so inside {@link #composite}, so
 * that two such writes (a scale and a patch of one object, two evictions under one budget) do not
 * interleave.
 */
public final class Store {
  private static final Logger LOG = LoggerFactory.getLogger(Store.class);

  private final Crud crud = new Crud();
  private final Object compositeWrites = new Object();

  public Store() {
    for (ResourceType t : BuiltInTypes.ALL) {
      if (t.statusSubresource()) {
        crud.expectCustomResource(
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

  /** One object (the stored JSON, or 404) or a list, as the mock answers a GET. */
  public MockResponse get(String path) {
    return crud.handleGet(path);
  }

  /** The mock's own handling of a request: create, update, its patches, delete, list, watch. */
  public MockResponse dispatch(RecordedRequest request) {
    return crud.dispatch(request);
  }

  /** Writes an object (or, at {@code .../status}, its status) by a PUT to the mock. */
  public MockResponse put(String path, String body) {
    return crud.dispatch(request(HttpMethod.PUT, path, body));
  }

  /** Deletes by path as the mock does: an object that has finalizers is only marked. */
  public MockResponse delete(String path) {
    return crud.handleDelete(path);
  }

  /** Runs a read-modify-write while no other one runs (reentrant: one may call another). */
  public <T> T composite(Composite<T> write) throws Exception {
    synchronized (compositeWrites) {
      return write.run();
    }
  }

  /** A read-modify-write of stored objects. */
  @FunctionalInterface
  public interface Composite<T> {
    T run() throws Exception;
  }

  /** A request with a JSON body, as the store takes one. */
  public static RecordedRequest request(HttpMethod method, String path, String body) {
    Headers headers = Headers.builder().add("Content-Type", "application/json").build();
    return new RecordedRequest("HTTP/1.1", method, path, headers, new Buffer().writeUtf8(body));
  }

  /** What the mock web server calls when it stops. */
  public void shutdown() {
    crud.shutdown();
  }

  /** The mock's CRUD dispatcher, its store indexed by name and type. */
  private static final class Crud extends KubernetesCrudDispatcher {
    /** The store, indexed by name (see {@link NamedObjects}); null if it could not be installed. */
    private final NamedObjects named;

    /** fabric8's lock over its store: reads share it, writes hold it alone. */
    private final ReadWriteLock storeLock;

    /** fabric8's last resourceVersion, which a list carries. */
    private AtomicLong storeVersion;

    Crud() {
      NamedObjects index = new NamedObjects();
      ReadWriteLock rw = null;
      try {
        // The store is a final field the base class fills with an unindexed map; empty still.
        Field store = CrudDispatcher.class.getDeclaredField("map");
        store.setAccessible(true);
        store.set(this, Collections.synchronizedMap(index));
        Field lock = KubernetesCrudDispatcher.class.getDeclaredField("lock");
        lock.setAccessible(true);
        Field version = KubernetesCrudDispatcher.class.getDeclaredField("resourceVersion");
        version.setAccessible(true);
        storeVersion = (AtomicLong) version.get(this);
        rw = (ReadWriteLock) lock.get(this);
      } catch (ReflectiveOperationException | RuntimeException e) {
        LOG.warn(
            "the API server's store is not indexed (every request scans it): {}", e.toString());
        index = null;
      }
      this.named = rw == null ? null : index;
      this.storeLock = rw;
    }

    /**
     * One named object from the index, as the base class answers it (the stored JSON, or 404);
     * lists, watches and what the index cannot serve go to the base class.
     */
    @Override
    public MockResponse handleGet(String path) {
      if (named == null || path.contains("watch=")) {
        return super.handleGet(path);
      }
      AttributeSet query = getAttributeExtractor().fromPath(path);
      Optional<String> name = NamedObjects.nameOf(query);
      if (name.isEmpty()) {
        return list(path, query);
      }
      storeLock.readLock().lock();
      try {
        Optional<Map.Entry<AttributeSet, String>> found;
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
    private MockResponse list(String path, AttributeSet query) {
      Optional<String> plural = NamedObjects.value(query, NamedObjects.PLURAL);
      if (plural.isEmpty()
          || storeVersion == null
          || !(getResponseComposer() instanceof KubernetesResponseComposer c)) {
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
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
      Optional<String> name = named == null ? Optional.empty() : NamedObjects.nameOf(query);
      if (name.isEmpty()) {
        return super.findResource(query);
      }
      synchronized (map) {
        return named.find(name.get(), query).orElse(null);
      }
    }
  }
}
