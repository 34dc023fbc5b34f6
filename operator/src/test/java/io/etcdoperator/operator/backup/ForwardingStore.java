package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/** A store that forwards every call; tests override what they break. */
class ForwardingStore implements SnapshotStore {
  private final SnapshotStore store;

  ForwardingStore(SnapshotStore store) {
    this.store = store;
  }

  @Override
  public void check() throws IOException {
    store.check();
  }

  @Override
  public Upload upload(String key) throws IOException {
    return store.upload(key);
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    store.put(key, content);
  }

  @Override
  public InputStream open(String key) throws IOException {
    return store.open(key);
  }

  @Override
  public Optional<Long> size(String key) throws IOException {
    return store.size(key);
  }

  @Override
  public java.util.List<String> list(String prefix) throws IOException {
    return store.list(prefix);
  }

  @Override
  public void delete(String key) throws IOException {
    store.delete(key);
  }

  @Override
  public String uri(String key) {
    return store.uri(key);
  }

  @Override
  public void close() {}
}
