package io.etcdoperator.sandbox;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Checks, once, that this process can give pods their own mount namespaces. */
final class Privileges {
  private Privileges() {}

  static void check() {
    String reason = null;
    try {
      Process p =
          new ProcessBuilder("unshare", "--mount", "--uts", "--propagation", "private", "true")
              .redirectErrorStream(true)
              .start();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        reason = "unshare did not finish";
      } else if (p.exitValue() != 0) {
        reason = new String(p.getInputStream().readAllBytes()).strip();
      }
    } catch (IOException e) {
      reason = e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      reason = "interrupted";
    }
    if (reason != null) {
      throw new SandboxException(
          "The sandbox needs root (CAP_SYS_ADMIN) and util-linux's unshare to give each pod its own"
              + " mount namespace, and this process cannot ("
              + reason
              + "): run it as root.");
    }
  }
}
