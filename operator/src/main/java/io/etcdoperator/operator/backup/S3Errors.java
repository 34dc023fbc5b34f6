package io.etcdoperator.operator.backup;

import java.io.IOException;

/**
 * What an S3 failure means for the user: a missing object or bucket, refused credentials (and which
 * fields hold them), a store that cannot be reached, or what the store said.
 */
final class S3Errors {
  private S3Errors() {}

  /**
   * {@code e} as a {@link StoreException} that names {@code where} (the object's URI and the
   * endpoint) and says what to do.
   */
  static StoreException translate(String where, String endpoint, String bucket, Throwable e) {
    if (e instanceof StoreException already) {
      return already;
    }
    if (e instanceof S3Http.Failure s) {
      String code = s.code();
      String said = code + " (HTTP " + s.status() + ")";
      if ("NoSuchKey".equals(code)) {
        return new StoreException(StoreException.Kind.NOT_FOUND, where + " does not exist", e);
      }
      if ("NoSuchBucket".equals(code)) {
        return new StoreException(
            StoreException.Kind.NOT_FOUND,
            "bucket " + bucket + " does not exist at " + endpoint,
            e);
      }
      if (s.status() == 404) {
        return new StoreException(StoreException.Kind.NOT_FOUND, where + " does not exist", e);
      }
      if (s.status() == 403 || s.status() == 401) {
        return new StoreException(
            StoreException.Kind.ACCESS_DENIED,
            "the store refused the credentials for "
                + where
                + ": "
                + said
                + "; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in credentialsSecretRef",
            e);
      }
      return new StoreException(StoreException.Kind.FAILED, where + ": " + said, e);
    }
    if (e instanceof IOException) {
      return new StoreException(
          StoreException.Kind.UNREACHABLE,
          "cannot reach the object store at " + endpoint + ": " + rootMessage(e),
          e);
    }
    return new StoreException(StoreException.Kind.FAILED, where + ": " + rootMessage(e), e);
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
  }
}
