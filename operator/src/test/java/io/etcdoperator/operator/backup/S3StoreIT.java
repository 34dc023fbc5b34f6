package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.testing.FaultyHttpProxy;
import io.etcdoperator.testing.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link S3Store}'s own S3 client against a real S3-compatible server (s3proxy, which checks every
 * request's Signature Version 4 and its body's SHA-256): keys that need encoding, listings of more
 * than one page, retries of a store that fails for a moment, and the calls' error answers.
 */
class S3StoreIT {
  private static final String BUCKET = "backups";

  @TempDir Path dir;

  @Test
  void keysThatNeedEncodingRoundTrip() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        S3Store store = store(s3.endpoint(), S3ProxyServer.SECRET_KEY)) {
      List<String> keys =
          List.of("ns/c/a b.db", "ns/c/plus+and&amp.db", "ns/c/é~(1).db", "ns/c/x=y;z,w.db");
      for (String k : keys) {
        store.put(k, k.getBytes(StandardCharsets.UTF_8));
      }
      for (String k : keys) {
        assertThat(store.open(k).readAllBytes()).isEqualTo(k.getBytes(StandardCharsets.UTF_8));
        assertThat(store.size(k)).contains((long) k.getBytes(StandardCharsets.UTF_8).length);
      }
      assertThat(store.list("ns/c")).containsExactlyInAnyOrderElementsOf(keys);
      store.delete("ns/c/a b.db");
      assertThat(store.size("ns/c/a b.db")).isEmpty();
      assertThat(store.list("ns/c")).hasSize(3);
    }
  }

  /** An endpoint at an IP address cannot take the bucket as a subdomain: it goes in the path. */
  @Test
  void anEndpointAtAnIpAddressIsAddressedInThePathWithoutForcePathStyle() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        S3Store store =
            new S3Store(
                s3.endpoint(),
                null,
                false,
                BUCKET,
                S3ProxyServer.ACCESS_KEY,
                S3ProxyServer.SECRET_KEY)) {
      assertThat(s3.endpoint()).startsWith("http://127.");
      store.put("ip/k", new byte[] {7});
      assertThat(store.open("ip/k").readAllBytes()).containsExactly(7);
    }
    assertThat(S3Http.ipAddress("10.0.0.1")).isTrue();
    assertThat(S3Http.ipAddress("[::1]")).isTrue();
    assertThat(S3Http.ipAddress("s3.example.com")).isFalse();
    assertThat(S3Http.ipAddress("minio")).isFalse();
  }

  @Test
  void aListingOfSeveralPagesIsWhole() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        S3Store store = store(s3.endpoint(), S3ProxyServer.SECRET_KEY)) {
      store.pageSize = 3;
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        keys.add("p/k-" + i);
        store.put("p/k-" + i, new byte[] {(byte) i});
      }
      store.put("q/other", new byte[1]);
      assertThat(store.list("p")).containsExactlyElementsOf(keys);
    }
  }

  @Test
  void aStoreThatFailsForAMomentIsAskedAgain() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store store = store(proxy.endpoint(), S3ProxyServer.SECRET_KEY)) {
      proxy.failFirst("^PUT /backups/flaky", FaultyHttpProxy.Fault.ERROR_500, 0, 2);
      store.put("flaky", new byte[] {42});
      assertThat(proxy.faulted()).isEqualTo(2);
      assertThat(store.open("flaky").readAllBytes()).containsExactly(42);

      proxy.failFirst("^GET /backups/flaky", FaultyHttpProxy.Fault.ERROR_500, 0, S3Http.ATTEMPTS);
      assertThatThrownBy(() -> store.open("flaky"))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("s3://backups/flaky at " + proxy.endpoint())
          .hasMessageContaining("InternalError (HTTP 500)");
      assertThat(proxy.faulted()).isEqualTo(2 + S3Http.ATTEMPTS);
    }
  }

  /**
   * A CompleteMultipartUpload carried out by the store whose answer is lost: the retry meets an
   * upload that is no more (NoSuchUpload), and the object it made is taken for what it is.
   */
  @Test
  void aCompletionWhoseAnswerWasLostIsNotAFailure() throws Exception {
    completeThrough(FaultyHttpProxy.Fault.LOSE_ANSWER, "big", S3Store.PART_SIZE + 4096);
  }

  /** A completion that fails after its 200 (an InternalError body) is tried again. */
  @Test
  void aCompletionFailingAfterIts200IsTriedAgain() throws Exception {
    completeThrough(FaultyHttpProxy.Fault.ERROR_IN_200, "late", S3Store.PART_SIZE + 1);
  }

  /** A multipart upload of {@code size} bytes whose first completion meets {@code fault}. */
  private void completeThrough(FaultyHttpProxy.Fault fault, String key, int size) throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store store = store(proxy.endpoint(), S3ProxyServer.SECRET_KEY)) {
      byte[] data = bytes(size);
      proxy.failFirst("^POST /backups/" + key + "\\?uploadId=", fault, 0, 1);
      try (SnapshotStore.Upload u = store.upload(key)) {
        u.write(data, 0, data.length);
        u.commit();
      }
      assertThat(proxy.faulted()).isEqualTo(1);
      assertThat(store.open(key).readAllBytes()).isEqualTo(data);
    }
  }

  /**
   * An answer cut short of its Content-Length is a failure, not a shorter answer: a download fails
   * as it is read, and a listing page is asked for again.
   */
  @Test
  void anAnswerCutShortIsAFailureNotAShorterAnswer() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        FaultyHttpProxy proxy = FaultyHttpProxy.in(s3.endpoint());
        S3Store store = store(proxy.endpoint(), S3ProxyServer.SECRET_KEY)) {
      byte[] data = bytes(100_000);
      store.put("p/cut", data);
      store.put("p/other", new byte[1]);

      proxy.failFirst("^GET /backups/p/cut ", FaultyHttpProxy.Fault.CUT, 50_000, 1);
      try (var in = store.open("p/cut")) {
        assertThatThrownBy(in::readAllBytes)
            .isInstanceOf(java.io.EOFException.class)
            .hasMessage("the answer ended after 50000 of its 100000 bytes");
      }
      assertThat(proxy.faulted()).isEqualTo(1);

      proxy.failFirst("^GET /backups\\?list-type", FaultyHttpProxy.Fault.CUT, 200, 1);
      assertThat(store.list("p")).containsExactly("p/cut", "p/other");
      assertThat(proxy.faulted()).isEqualTo(2);
    }
  }

  @Test
  void errorAnswersAreNamed() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), BUCKET);
        S3Store store = store(s3.endpoint(), S3ProxyServer.SECRET_KEY);
        S3Store wrong = store(s3.endpoint(), "not-the-secret")) {
      assertThat(store.size("missing")).isEmpty();
      assertThatThrownBy(() -> store.open("missing"))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("s3://backups/missing at " + s3.endpoint() + " does not exist")
          .satisfies(
              e ->
                  assertThat(((StoreException) e).kind()).isEqualTo(StoreException.Kind.NOT_FOUND));
      assertThatThrownBy(wrong::check)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("refused the credentials")
          .satisfies(
              e ->
                  assertThat(((StoreException) e).kind())
                      .isEqualTo(StoreException.Kind.ACCESS_DENIED));
      assertThatThrownBy(() -> wrong.put("k", new byte[1]))
          .hasMessageContaining("SignatureDoesNotMatch");
    }
    try (S3Store nobody = store("http://127.0.0.1:1", S3ProxyServer.SECRET_KEY)) {
      assertThatThrownBy(nobody::check)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("cannot reach the object store at http://127.0.0.1:1")
          .satisfies(
              e ->
                  assertThat(((StoreException) e).kind())
                      .isEqualTo(StoreException.Kind.UNREACHABLE));
    }
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    new java.util.Random(n).nextBytes(b);
    return b;
  }

  private static S3Store store(String endpoint, String secret) {
    return new S3Store(endpoint, null, true, BUCKET, S3ProxyServer.ACCESS_KEY, secret);
  }
}
