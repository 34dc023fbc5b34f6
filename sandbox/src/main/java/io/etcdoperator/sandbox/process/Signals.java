package io.etcdoperator.sandbox.process;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Sends signals to whole process groups (a container's processes), through {@code kill(1)}. */
public final class Signals {
  private Signals() {}

  /**
   * Sends {@code signal} (e.g. TERM, KILL, STOP, CONT) to process group {@code pgid}; true if sent.
   */
  public static boolean toGroup(long pgid, String signal) {
    if (pgid <= 1) {
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    try {
      Process p =
          new ProcessBuilder("kill", "-s", signal, "--", "-" + pgid)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
