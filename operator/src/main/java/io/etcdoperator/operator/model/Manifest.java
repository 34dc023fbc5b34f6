package io.etcdoperator.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The small JSON object written next to a snapshot, after it: its presence says the snapshot under
 * {@link #snapshotKey} is complete, and it carries what a restore checks (size, sha256) and what
 * status reports. Also the agent's result, printed on its last line and in its termination message.
 *
 * @param format {@value #FORMAT}
 * @param cluster namespace/name of the EtcdCluster
 * @param snapshotKey the snapshot's key in its store
 * @param uri the snapshot's URI
 * @param sizeBytes size of the snapshot file (database and etcd's 32-byte sha256)
 * @param sha256 sha256 (hex) of the whole file, as sha256sum prints it
 * @param databaseSha256 etcd's sha256 of the database (the file's last 32 bytes)
 * @param revision every write up to this revision is in the snapshot (the member's revision just
 *     before the snapshot started: exact when nothing was written meanwhile)
 * @param clusterId etcd cluster ID (hex)
 * @param memberId ID (hex) of the member it was taken from
 * @param member name of that member
 * @param etcdVersion that member's etcd version
 * @param startTime when the stream started (RFC 3339)
 * @param completionTime when the snapshot was committed (RFC 3339)
 * @param durationMillis how long stream and upload took
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(
    String format,
    String cluster,
    String snapshotKey,
    String uri,
    long sizeBytes,
    String sha256,
    String databaseSha256,
    long revision,
    String clusterId,
    String memberId,
    String member,
    String etcdVersion,
    String startTime,
    String completionTime,
    long durationMillis) {
  public static final String FORMAT = "etcd-operator.snapshot/v1";

  /** Where the manifest of the snapshot at {@code snapshotKey} is. */
  public static String keyFor(String snapshotKey) {
    return snapshotKey + ".manifest.json";
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public byte[] toJson() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public String toJsonLine() {
    return new String(toJson(), StandardCharsets.UTF_8);
  }

  public static Manifest read(byte[] json) throws IOException {
    Manifest m = JSON.readValue(json, Manifest.class);
    if (!FORMAT.equals(m.format())) {
      throw new IOException("not a manifest of " + FORMAT + ": format " + m.format());
    }
    return m;
  }

  /** The manifest in an agent's result (its last line), if that is one. */
  public static Optional<Manifest> parse(String result) {
    if (result == null) {
      return Optional.empty();
    }
    String last =
        result
            .lines()
            .map(String::trim)
            .filter(l -> l.startsWith("{"))
            .reduce((a, b) -> b)
            .orElse("");
    try {
      return Optional.of(read(last.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
