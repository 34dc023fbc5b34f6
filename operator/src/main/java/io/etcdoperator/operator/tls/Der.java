package io.etcdoperator.operator.tls;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The little of ASN.1 DER that reading a PEM private key takes: splitting an element into its
 * children, and writing a SEQUENCE, an OCTET STRING or an OBJECT IDENTIFIER around bytes.
 *
 * <p>An element is its tag byte, its length (one byte below 128, else 0x80 plus the count of
 * big-endian length bytes that follow) and that many content bytes. Tags above 30 (two-byte tags)
 * do not occur in keys and are refused, as are lengths past the input.
 */
final class Der {
  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int NULL = 0x05;
  static final int OID = 0x06;
  static final int SEQUENCE = 0x30;

  /** {@code [0]} constructed: SEC1's curve parameters. */
  static final int CONTEXT_0 = 0xA0;

  private Der() {}

  /**
   * One element: its tag, and its whole encoding {@code [start, end)} of which content starts at
   * {@code content}.
   */
  record Element(byte[] der, int tag, int start, int content, int end) {
    byte[] encoded() {
      return Arrays.copyOfRange(der, start, end);
    }

    /** The elements inside this one, in order. */
    List<Element> children() {
      return Der.elements(der, content, end);
    }
  }

  /** The one element that {@code der} is. */
  static Element read(byte[] der) {
    List<Element> all = elements(der, 0, der.length);
    if (all.size() != 1) {
      throw new IllegalArgumentException("not one DER element but " + all.size());
    }
    return all.get(0);
  }

  static List<Element> elements(byte[] der, int from, int to) {
    List<Element> out = new ArrayList<>();
    int i = from;
    while (i < to) {
      int start = i;
      int tag = der[i++] & 0xFF;
      if ((tag & 0x1F) == 0x1F) {
        throw new IllegalArgumentException("multi-byte DER tag at " + start);
      }
      if (i >= to) {
        throw new IllegalArgumentException("DER element cut short at " + start);
      }
      int first = der[i++] & 0xFF;
      long length;
      if (first < 0x80) {
        length = first;
      } else {
        int bytes = first & 0x7F;
        if (bytes == 0 || bytes > 4 || i + bytes > to) {
          throw new IllegalArgumentException("bad DER length at " + start);
        }
        length = 0;
        for (int k = 0; k < bytes; k++) {
          length = length << 8 | der[i++] & 0xFF;
        }
      }
      if (length > to - i) {
        throw new IllegalArgumentException("DER element longer than its input at " + start);
      }
      out.add(new Element(der, tag, start, i, i + (int) length));
      i += (int) length;
    }
    return out;
  }

  /** {@code tag}, the DER length of {@code content}, then {@code content}. */
  static byte[] wrap(int tag, byte[]... content) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] c : content) {
      body.writeBytes(c);
    }
    int n = body.size();
    ByteArrayOutputStream out = new ByteArrayOutputStream(n + 6);
    out.write(tag);
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
      out.write(0x80 | bytes);
      for (int k = bytes - 1; k >= 0; k--) {
        out.write(n >>> (8 * k));
      }
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }
}
