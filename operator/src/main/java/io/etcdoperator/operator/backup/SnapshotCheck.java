package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Copies a snapshot file while checking it: the sha256 of the whole file (against a manifest), and
 * etcd's own trailer (the last 32 bytes must be the sha256 of everything before them). A truncated
 * file fails the second check however it was cut, since its last 32 bytes are then data.
 */
final class SnapshotCheck {
  private static final int SHA = 32;

  /** What was read. */
  record Result(long size, String sha256, boolean trailerMatches) {}

  private SnapshotCheck() {}

  static Result copy(InputStream in, OutputStream out) throws IOException {
    MessageDigest whole = sha256();
    MessageDigest db = sha256();
    byte[] buf = new byte[1 << 16];
    byte[] tail = new byte[SHA];
    int held = 0;
    long size = 0;
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      whole.update(buf, 0, n);
      size += n;
      // everything but the last 32 bytes seen goes into the database's digest
      if (n >= SHA) {
        db.update(tail, 0, held);
        db.update(buf, 0, n - SHA);
        System.arraycopy(buf, n - SHA, tail, 0, SHA);
        held = SHA;
      } else {
        int overflow = held + n - SHA;
        if (overflow > 0) {
          db.update(tail, 0, overflow);
          System.arraycopy(tail, overflow, tail, 0, held - overflow);
          held -= overflow;
        }
        System.arraycopy(buf, 0, tail, held, n);
        held += n;
      }
    }
    boolean trailer = held == SHA && Arrays.equals(db.digest(), tail);
    return new Result(size, HexFormat.of().formatHex(whole.digest()), trailer);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
