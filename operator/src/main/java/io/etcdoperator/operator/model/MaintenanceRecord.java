package io.etcdoperator.operator.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the operator did to a cluster's data that the world must remember, because etcd does not say
 * it: each member's last defragmentation ({@value Names#DEFRAGMENTED_ANNOTATION}, JSON) and the
 * last compaction of a NOSPACE recovery ({@value Names#COMPACTED_ANNOTATION}, {@code
 * <revision>@<time>}), both on the cluster-state ConfigMap. A schedule's round, a threshold's
 * cool-down and a NOSPACE recovery are decided from them, so that an operator restarted in the
 * middle goes on where the last one stopped. A value that does not read (edited by hand) counts as
 * no record.
 */
public final class MaintenanceRecord {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MaintenanceRecord() {}

  /**
   * One member's last defragmentation.
   *
   * @param at when it ended
   * @param took how long etcd took (zero when it failed)
   * @param before the database size before, in bytes
   * @param after the database size after, in bytes
   * @param error why it failed; empty when it did not
   */
  public record Defragmentation(
      Instant at, Duration took, long before, long after, Optional<String> error) {
    public boolean failed() {
      return error.isPresent();
    }
  }

  /** A compaction of the history up to {@code revision}, done at {@code at}. */
  public record Compaction(long revision, Instant at) {
    public String value() {
      return revision + "@" + at;
    }
  }

  /** Each member's last defragmentation, by member name. */
  public static Map<String, Defragmentation> defragmentations(ClusterState state) {
    Map<String, Defragmentation> records = new TreeMap<>();
    Optional<String> value = state.annotation(Names.DEFRAGMENTED_ANNOTATION);
    if (value.isEmpty()) {
      return records;
    }
    try {
      JsonNode root = JSON.readTree(value.get());
      for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode r = e.getValue();
        try {
          records.put(
              e.getKey(),
              new Defragmentation(
                  Instant.parse(r.path("at").asText()),
                  Duration.ofMillis(r.path("tookMillis").asLong()),
                  r.path("before").asLong(),
                  r.path("after").asLong(),
                  r.hasNonNull("error") ? Optional.of(r.get("error").asText()) : Optional.empty()));
        } catch (DateTimeParseException ignored) {
          // not a record
        }
      }
    } catch (JsonProcessingException e) {
      // not a record
    }
    return records;
  }

  /** The annotation's value with {@code member}'s record replaced. */
  public static String withDefragmentation(
      ClusterState state, String member, Defragmentation record) {
    Map<String, Defragmentation> records = defragmentations(state);
    records.put(member, record);
    ObjectNode root = JSON.createObjectNode();
    records.forEach(
        (name, r) -> {
          ObjectNode n = root.putObject(name);
          n.put("at", r.at().toString());
          n.put("tookMillis", r.took().toMillis());
          n.put("before", r.before());
          n.put("after", r.after());
          r.error().ifPresent(err -> n.put("error", err));
        });
    return root.toString();
  }

  /** The last compaction of a NOSPACE recovery. */
  public static Optional<Compaction> compaction(ClusterState state) {
    return state
        .annotation(Names.COMPACTED_ANNOTATION)
        .flatMap(
            v -> {
              int at = v.indexOf('@');
              try {
                return Optional.of(
                    new Compaction(
                        Long.parseLong(v.substring(0, at)), Instant.parse(v.substring(at + 1))));
              } catch (RuntimeException e) {
                return Optional.empty();
              }
            });
  }
}
