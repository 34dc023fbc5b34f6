package io.etcdoperator.operator.backup;

import java.io.IOException;

/**
 * The member a backup reads its snapshot from failed it: it does not answer, or its snapshot stream
 * broke, stalled or ended with a checksum that does not match. Unlike a store's refusal, another
 * member may well do: the agent exits with {@link
 * io.etcdoperator.operator.model.BackupPods#EXIT_MEMBER_FAILED} and the operator tries again on a
 * member that is healthy then.
 */
public final class MemberFailedException extends IOException {
  private static final long serialVersionUID = 1L;

  public MemberFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
