package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.operator.etcd.ChangeEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A change log chunk round-trips, names its range in its key, and refuses a changed byte. */
class ChangeChunkTest {
  static final ChangeChunk CHUNK =
      new ChangeChunk(
          41,
          43,
          Instant.parse("2026-11-29T10:00:00Z"),
          Instant.parse("2026-11-29T10:00:01Z"),
          "cdf818194e3a8c32",
          List.of(
              new ChangeEvent(41, false, b("a"), b("1"), 0),
              new ChangeEvent(42, true, b("b"), new byte[0], 0),
              new ChangeEvent(43, false, b("c\n\"x"), new byte[] {0, 1, 2}, 7)));

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void roundTripsAndKeysSortByRevision() throws Exception {
    ChangeChunk back = ChangeChunk.decode(CHUNK.encode(), "x");
    assertThat(back.from()).isEqualTo(41);
    assertThat(back.to()).isEqualTo(43);
    assertThat(back.events()).hasSize(3);
    assertThat(back.clusterId()).isEqualTo("cdf818194e3a8c32");
    assertThat(back.events().get(1).delete()).isTrue();
    assertThat(back.events().get(2).key()).isEqualTo(b("c\n\"x"));
    assertThat(back.events().get(2).value()).containsExactly(0, 1, 2);
    String key = CHUNK.key("test/nightly.changes");
    assertThat(key)
        .isEqualTo("test/nightly.changes/00000000000000000041-00000000000000000043.chunk");
    assertThat(ChangeChunk.range(key)).containsExactly(41, 43);
    assertThat(ChangeChunk.range("test/nightly.changes/notes.txt")).isNull();
  }

  @Test
  void aChangedByteIsAHashMismatch() {
    byte[] bytes = CHUNK.encode();
    bytes[bytes.length - 5] ^= 1;
    assertThatThrownBy(() -> ChangeChunk.decode(bytes, "s3://b/c.chunk"))
        .hasMessageContaining("sha256 mismatch: s3://b/c.chunk");
  }
}
