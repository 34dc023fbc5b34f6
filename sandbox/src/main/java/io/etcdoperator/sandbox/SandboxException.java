package io.etcdoperator.sandbox;

/** A failure of the sandbox whose message is one sentence meant for the person running it. */
public class SandboxException extends RuntimeException {
  public SandboxException(String message) {
    super(message);
  }

  public SandboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
