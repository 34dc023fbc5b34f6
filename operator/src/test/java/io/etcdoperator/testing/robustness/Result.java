package io.etcdoperator.testing.robustness;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/** What etcd answered to a {@link Request} (besides the header, which {@link Op} keeps). */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Result.Range.class, name = "range"),
  @JsonSubTypes.Type(value = Result.Put.class, name = "put"),
  @JsonSubTypes.Type(value = Result.Delete.class, name = "delete"),
  @JsonSubTypes.Type(value = Result.Txn.class, name = "txn"),
  @JsonSubTypes.Type(value = Result.Done.class, name = "done")
})
public sealed interface Result {

  /** The keys a range returned, in key order. */
  record Range(List<Kv> kvs) implements Result {
    public Range {
      kvs = List.copyOf(kvs);
    }
  }

  /** A put's answer: the previous value when asked for and there was one, else null. */
  record Put(Kv prev) implements Result {}

  /** A delete's answer: how many keys it deleted, and their previous values when asked for. */
  record Delete(long deleted, List<Kv> prev) implements Result {
    public Delete {
      prev = List.copyOf(prev);
    }
  }

  /** A transaction's answer: which branch ran, and the answer of each of its requests. */
  record Txn(boolean succeeded, List<Result> results) implements Result {
    public Txn {
      results = List.copyOf(results);
    }
  }

  /** A revocation, a grant or a compaction: nothing but the header. */
  record Done() implements Result {}
}
