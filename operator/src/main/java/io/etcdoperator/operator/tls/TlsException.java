package io.etcdoperator.operator.tls;

/** What is wrong with a piece of TLS material, worded to follow its Secret and key. */
public final class TlsException extends Exception {
  public TlsException(String message) {
    super(message);
  }
}
