package io.etcdoperator.testing.robustness;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * What a client asked etcd, in the shapes the workload uses: etcd's KV calls, a transaction of
 * them, a lease's revocation, a compaction and a lease grant.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Request.Range.class, name = "range"),
  @JsonSubTypes.Type(value = Request.Put.class, name = "put"),
  @JsonSubTypes.Type(value = Request.Delete.class, name = "delete"),
  @JsonSubTypes.Type(value = Request.Txn.class, name = "txn"),
  @JsonSubTypes.Type(value = Request.Revoke.class, name = "revoke"),
  @JsonSubTypes.Type(value = Request.Grant.class, name = "grant"),
  @JsonSubTypes.Type(value = Request.Compact.class, name = "compact")
})
public sealed interface Request {

  /** Whether this request can change the key-value store (a put, a delete, a revocation). */
  boolean canWrite();

  /**
   * A read of one key ({@code end} null) or of the keys in {@code [key, end)}; serializable: the
   * member's own copy, not through the leader.
   */
  record Range(String key, String end, boolean serializable) implements Request {
    @Override
    public boolean canWrite() {
      return false;
    }

    boolean covers(String k) {
      return end == null ? k.equals(key) : k.compareTo(key) >= 0 && k.compareTo(end) < 0;
    }

    @Override
    public String toString() {
      return (serializable ? "serializable " : "")
          + (end == null ? "get " + key : "range [" + key + ", " + end + ")");
    }
  }

  /** A put, attached to {@code lease} (0: none), asking for the previous value or not. */
  record Put(String key, String value, long lease, boolean prevKv) implements Request {
    @Override
    public boolean canWrite() {
      return true;
    }

    @Override
    public String toString() {
      return "put " + key + "=" + value + (lease == 0 ? "" : " lease " + Long.toHexString(lease));
    }
  }

  /** A delete of one key. */
  record Delete(String key, boolean prevKv) implements Request {
    @Override
    public boolean canWrite() {
      return true;
    }

    @Override
    public String toString() {
      return "delete " + key;
    }
  }

  /** {@code mod_revision(key) == modRevision} (0: the key does not exist), as Kubernetes asks. */
  record Compare(String key, long modRevision) {
    @Override
    public String toString() {
      return "mod(" + key + ")==" + modRevision;
    }
  }

  /** A transaction: if every compare holds, {@code onSuccess}, else {@code onFailure}. */
  record Txn(List<Compare> compares, List<Request> onSuccess, List<Request> onFailure)
      implements Request {
    public Txn {
      compares = List.copyOf(compares);
      onSuccess = List.copyOf(onSuccess);
      onFailure = List.copyOf(onFailure);
      for (Request r : onSuccess) {
        requireSimple(r);
      }
      for (Request r : onFailure) {
        requireSimple(r);
      }
    }

    private static void requireSimple(Request r) {
      if (!(r instanceof Range || r instanceof Put || r instanceof Delete)) {
        throw new IllegalArgumentException("a transaction holds ranges, puts and deletes: " + r);
      }
    }

    @Override
    public boolean canWrite() {
      return onSuccess.stream().anyMatch(Request::canWrite)
          || onFailure.stream().anyMatch(Request::canWrite);
    }

    @Override
    public String toString() {
      return "txn if " + compares + " then " + onSuccess + " else " + onFailure;
    }
  }

  /** Revokes a lease: deletes every key attached to it, in one revision. */
  record Revoke(long lease) implements Request {
    @Override
    public boolean canWrite() {
      return true;
    }

    @Override
    public String toString() {
      return "revoke " + Long.toHexString(lease);
    }
  }

  /** Grants a lease with the client's own ID; no change to the key-value store. */
  record Grant(long lease, long ttlSeconds) implements Request {
    @Override
    public boolean canWrite() {
      return false;
    }

    @Override
    public String toString() {
      return "grant " + Long.toHexString(lease) + " ttl " + ttlSeconds + "s";
    }
  }

  /** Compacts the history up to {@code revision}; no change to the key-value store's state. */
  record Compact(long revision) implements Request {
    @Override
    public boolean canWrite() {
      return false;
    }

    @Override
    public String toString() {
      return "compact " + revision;
    }
  }
}
