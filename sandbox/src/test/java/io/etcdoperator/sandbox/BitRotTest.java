package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BitRotTest {
  @TempDir Path dir;

  static final byte[] MARKER = "marker-42".getBytes(StandardCharsets.US_ASCII);

  @Test
  void flipsTheLastByteOfEveryOccurrenceAndNothingElse() throws Exception {
    Path file = dir.resolve("db");
    Files.writeString(file, "aa marker-42 bb marker-42marker-4 cc", StandardCharsets.US_ASCII);

    assertThat(BitRot.flip(file, MARKER)).isEqualTo(2);

    assertThat(Files.readString(file, StandardCharsets.US_ASCII))
        .isEqualTo("aa marker-43 bb marker-43marker-4 cc");
  }

  @Test
  void aProcessThatMapsTheFileSeesTheFlip() throws Exception {
    Path file = dir.resolve("db");
    Files.write(file, "xx marker-42 yy".getBytes(StandardCharsets.US_ASCII));
    try (FileChannel ch = FileChannel.open(file)) {
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
      assertThat(map.get(11)).isEqualTo((byte) '2');

      BitRot.flip(file, MARKER);

      assertThat(map.get(11)).isEqualTo((byte) '3');
    }
  }

  @Test
  void noOccurrenceNoChange() throws Exception {
    Path file = dir.resolve("db");
    Files.writeString(file, "nothing here");
    assertThat(BitRot.flip(file, MARKER)).isZero();
    assertThat(Files.readString(file)).isEqualTo("nothing here");
    assertThatThrownBy(() -> BitRot.flip(file, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
