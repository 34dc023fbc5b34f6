package io.etcdoperator.operator.backup;

import java.io.IOException;

/** A store refused or failed; {@link #kind()} says how, the message says what to do. */
public final class StoreException extends IOException {
  private static final long serialVersionUID = 1L;

  /** How a store failed. */
  public enum Kind {
    /** The object (or the bucket, or the directory) is not there. */
    NOT_FOUND,
    /** The credentials are wrong or lack the permission. */
    ACCESS_DENIED,
    /** The store cannot be reached (connection refused, timed out, DNS). */
    UNREACHABLE,
    /** Anything else the store said. */
    FAILED
  }

  private final Kind kind;

  public StoreException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
