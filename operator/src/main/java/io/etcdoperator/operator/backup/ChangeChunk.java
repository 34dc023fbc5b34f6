package io.etcdoperator.operator.backup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.operator.etcd.ChangeEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * One chunk of a cluster's change log: every change of the revisions {@code from..to} (inclusive;
 * chunks follow each other without gap), when the archiver saw the first and the last, the etcd
 * cluster it was read from, and the sha256 of its body. Stored as {@code <log>/<from:20
 * digits>-<to:20 digits>.chunk}, so that keys sort in revision order: a first line of JSON (the
 * header: format, from, to, times, cluster ID, count, sha256), then one JSON line per change
 * ({@code r} revision, {@code d} delete, {@code k} key and {@code v} value in base64).
 */
public record ChangeChunk(
    long from,
    long to,
    Instant firstSeen,
    Instant lastSeen,
    String clusterId,
    List<ChangeEvent> events) {
  public static final String FORMAT = "etcd-operator.changes/v1";
  public static final String SUFFIX = ".chunk";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param clusterId the etcd cluster ID (hex) the changes were read from; "" when not known (a
   *     chunk written before chunks carried it)
   */
  public ChangeChunk {
    clusterId = clusterId == null ? "" : clusterId;
    events = List.copyOf(events);
  }

  /** The chunk's key under the change log {@code log}. */
  public String key(String log) {
    return log + "/" + String.format("%020d-%020d", from, to) + SUFFIX;
  }

  /** The revision range a chunk key names, {from, to}; null when it is not a chunk's key. */
  public static long[] range(String key) {
    String name = key.substring(key.lastIndexOf('/') + 1);
    if (!name.endsWith(SUFFIX) || name.length() != 41 + SUFFIX.length()) {
      return null;
    }
    try {
      return new long[] {
        Long.parseLong(name.substring(0, 20)), Long.parseLong(name.substring(21, 41))
      };
    } catch (NumberFormatException e) {
      return null;
    }
  }

  public byte[] encode() {
    StringBuilder body = new StringBuilder();
    Base64.Encoder b64 = Base64.getEncoder();
    for (ChangeEvent e : events) {
      ObjectNode n = JSON.createObjectNode();
      n.put("r", e.revision());
      if (e.delete()) {
        n.put("d", true);
      }
      n.put("k", b64.encodeToString(e.key()));
      if (!e.delete()) {
        n.put("v", b64.encodeToString(e.value()));
      }
      body.append(n.toString()).append('\n');
    }
    byte[] bodyBytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ObjectNode h = JSON.createObjectNode();
    h.put("format", FORMAT);
    h.put("from", from);
    h.put("to", to);
    h.put("firstSeen", firstSeen.toString());
    h.put("lastSeen", lastSeen.toString());
    if (!clusterId.isEmpty()) {
      h.put("clusterId", clusterId);
    }
    h.put("changes", events.size());
    h.put("sha256", sha256(bodyBytes));
    byte[] header = (h.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[header.length + bodyBytes.length];
    System.arraycopy(header, 0, all, 0, header.length);
    System.arraycopy(bodyBytes, 0, all, header.length, bodyBytes.length);
    return all;
  }

  /** Reads a chunk; throws IOException saying what is wrong (format, hash). */
  public static ChangeChunk decode(byte[] bytes, String where) throws IOException {
    int nl = 0;
    while (nl < bytes.length && bytes[nl] != '\n') {
      nl++;
    }
    JsonNode h = JSON.readTree(new String(bytes, 0, nl, StandardCharsets.UTF_8));
    if (!FORMAT.equals(h.path("format").asText())) {
      throw new IOException(where + " is not a change log chunk of " + FORMAT);
    }
    byte[] body = Arrays.copyOfRange(bytes, Math.min(nl + 1, bytes.length), bytes.length);
    String sha = sha256(body);
    if (!sha.equals(h.path("sha256").asText())) {
      throw new IOException(
          "sha256 mismatch: "
              + where
              + " hashes to "
              + sha
              + " but says "
              + h.path("sha256").asText());
    }
    List<ChangeEvent> events = new ArrayList<>();
    Base64.Decoder b64 = Base64.getDecoder();
    for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = JSON.readTree(line);
      boolean delete = n.path("d").asBoolean(false);
      events.add(
          new ChangeEvent(
              n.path("r").asLong(),
              delete,
              b64.decode(n.path("k").asText()),
              delete ? new byte[0] : b64.decode(n.path("v").asText()),
              0));
    }
    if (events.size() != h.path("changes").asInt(-1)) {
      throw new IOException(
          where + " holds " + events.size() + " changes but says " + h.path("changes"));
    }
    return new ChangeChunk(
        h.path("from").asLong(),
        h.path("to").asLong(),
        Instant.parse(h.path("firstSeen").asText()),
        Instant.parse(h.path("lastSeen").asText()),
        h.path("clusterId").asText(""),
        events);
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
