package io.etcdoperator.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Flips bytes of a file in place, where a marker occurs: see {@link Faults#rot}. */
final class BitRot {
  private BitRot() {}

  /**
   * Flips the lowest bit of the last byte of each occurrence of {@code marker} in {@code file},
   * writing through the file (not replacing it), so that a process that maps it sees the change.
   * Returns how many bytes were flipped.
   */
  static int flip(Path file, byte[] marker) throws IOException {
    if (marker.length == 0) {
      throw new IllegalArgumentException("an empty marker");
    }
    byte[] content = Files.readAllBytes(file);
    int flipped = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      for (int at = indexOf(content, marker, 0); at >= 0; at = indexOf(content, marker, at + 1)) {
        int last = at + marker.length - 1;
        ch.write(ByteBuffer.wrap(new byte[] {(byte) (content[last] ^ 1)}), last);
        flipped++;
      }
      ch.force(true);
    }
    return flipped;
  }

  static int indexOf(byte[] content, byte[] marker, int from) {
    outer:
    for (int i = from; i <= content.length - marker.length; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (content[i + j] != marker[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
