package io.etcdoperator.testing.robustness;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;

/**
 * The workload's values: each one unique, {@code c<client>.<n>}, so that a value read anywhere
 * names the one operation that wrote it; a large value is that name, {@code ~}, and {@code x} up to
 * its size. Histories keep values compact: a large value as {@code <name>~<size>}.
 */
public final class Values {
  private static final int SHORT = 64;

  private Values() {}

  /** The value named {@code name}, {@code size} bytes long (at least the name's own length). */
  public static ByteString make(String name, int size) {
    if (size <= name.length()) {
      return ByteString.copyFromUtf8(name);
    }
    byte[] bytes = new byte[size];
    byte[] head = (name + "~").getBytes(StandardCharsets.UTF_8);
    System.arraycopy(head, 0, bytes, 0, head.length);
    java.util.Arrays.fill(bytes, head.length, size, (byte) 'x');
    return ByteString.copyFrom(bytes);
  }

  /**
   * What a history keeps of a value etcd returned: a large value of the workload's form shortened.
   */
  public static String compact(ByteString value) {
    int size = value.size();
    if (size <= SHORT) {
      return value.toStringUtf8();
    }
    int tilde = value.substring(0, Math.min(size, SHORT)).toStringUtf8().indexOf('~');
    if (tilde > 0) {
      boolean padded = true;
      for (int i = tilde + 1; i < size && padded; i++) {
        padded = value.byteAt(i) == 'x';
      }
      if (padded) {
        return value.substring(0, tilde).toStringUtf8() + "~" + size;
      }
    }
    // not of the workload's form: keep enough to tell it apart, never all of it
    return value.substring(0, SHORT).toStringUtf8()
        + "...("
        + size
        + " bytes, crc "
        + crc(value)
        + ")";
  }

  /** The compact form of {@link #make}'s value: what a history holds for it. */
  public static String compact(String name, int size) {
    return size <= SHORT || size <= name.length()
        ? make(name, size).toStringUtf8()
        : name + "~" + size;
  }

  /** The unique name a (compact) value carries. */
  public static String name(String compactValue) {
    int tilde = compactValue.indexOf('~');
    return tilde < 0 ? compactValue : compactValue.substring(0, tilde);
  }

  private static long crc(ByteString value) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(value.asReadOnlyByteBuffer());
    return crc.getValue();
  }
}
