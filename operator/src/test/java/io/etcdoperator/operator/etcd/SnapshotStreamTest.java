package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The trailer check of a snapshot stream, however the stream is cut into messages. */
class SnapshotStreamTest {
  static byte[] stream(int dbSize) throws Exception {
    byte[] db = new byte[dbSize];
    new Random(dbSize).nextBytes(db);
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(db);
    byte[] all = Arrays.copyOf(db, dbSize + 32);
    System.arraycopy(sha, 0, all, dbSize, 32);
    return all;
  }

  static SnapshotResult feed(byte[] all, int announced, int... cuts) {
    SnapshotStream.Trailer t = new SnapshotStream.Trailer();
    int at = 0;
    for (int cut : cuts) {
      t.feed(Arrays.copyOfRange(all, at, cut));
      at = cut;
    }
    t.feed(Arrays.copyOfRange(all, at, all.length));
    return t.finish("http://m:2379", announced, all.length, Duration.ZERO);
  }

  @Test
  void wholeStreamPassesWhateverTheMessageSizes() throws Exception {
    byte[] all = stream(8192);
    String sha = HexFormat.of().formatHex(Arrays.copyOfRange(all, 8192, 8224));
    assertThat(feed(all, 8192, 8192).databaseSha256()).isEqualTo(sha);
    assertThat(feed(all, 8192, 1, 2, 31, 4000, 8190, 8200, 8223).databaseSha256()).isEqualTo(sha);
    assertThat(feed(all, -1).sizeBytes()).isEqualTo(8224);
    // the file's own hash comes from the same pass
    assertThat(feed(all, 8192, 100, 8200).fileSha256())
        .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(all)));
  }

  @Test
  void aStreamCutShortIsRefused() throws Exception {
    byte[] all = stream(8192);
    byte[] cut = Arrays.copyOf(all, 5000);
    assertThatThrownBy(() -> feed(cut, 8192, 4096))
        .isInstanceOfSatisfying(
            EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.BAD_SNAPSHOT))
        .hasMessageContaining("announced a 8192-byte database but sent 4968 bytes");
    assertThatThrownBy(() -> feed(Arrays.copyOf(all, 20), -1))
        .hasMessageContaining("without etcd's sha256");
  }

  @Test
  void aChangedByteIsAHashMismatch() throws Exception {
    byte[] all = stream(8192);
    all[100] ^= 1;
    assertThatThrownBy(() -> feed(all, 8192, 4096))
        .isInstanceOfSatisfying(
            EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.BAD_SNAPSHOT))
        .hasMessageContaining("sha256 mismatch");
  }
}
