package io.etcdoperator.testing.robustness;

/**
 * One call a client made, as recorded: when it was sent and when its answer (or failure) came, on
 * the history's one monotonic clock (nanoseconds since the history's start), what was asked, and
 * what etcd answered.
 *
 * <p>A call that failed ({@code result} null: a deadline, a lost connection, an error from etcd) is
 * <em>indeterminate</em> when it could write: etcd may have applied it, then or later, or never. A
 * failed read tells nothing and is left out of every check.
 *
 * @param id the operation's number in the history
 * @param client the client that made it (each client has one call in flight at most)
 * @param start when the request was sent
 * @param end when the answer or the failure came back
 * @param request what was asked
 * @param result etcd's answer, or null when the call failed
 * @param revision the answer's header revision (0 when it failed)
 * @param member the answering member's ID from the header (0 when it failed)
 * @param error what the failure was (null when it succeeded)
 */
public record Op(
    int id,
    int client,
    long start,
    long end,
    Request request,
    Result result,
    long revision,
    long member,
    String error) {

  public boolean failed() {
    return result == null;
  }

  /**
   * Whether etcd may have applied it without the client knowing: a failed call that could write.
   */
  public boolean indeterminate() {
    return failed() && request.canWrite();
  }

  /**
   * Whether it was a serializable read (a member's own copy, outside the linearizability check).
   */
  public boolean serializable() {
    return request instanceof Request.Range r && r.serializable();
  }

  /** A line for a report: number, client, times in ms, request, answer. */
  public String describe() {
    return String.format(
        java.util.Locale.ROOT,
        "#%d client %d [%.3f s, %s] %s -> %s",
        id,
        client,
        start / 1e9,
        failed()
            ? "failed at " + String.format(java.util.Locale.ROOT, "%.3f s", end / 1e9)
            : String.format(java.util.Locale.ROOT, "%.3f s", end / 1e9),
        request,
        failed() ? "error: " + error : "rev " + revision + " " + result);
  }
}
