package io.etcdoperator.sandbox.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and kills the processes a sandbox started, by the tag each carries in its environment
 * ({@code SANDBOX_PROCESS_TAG}, derived from the sandbox's state directory). It is how a sandbox
 * cleans up after a previous run in the same directory that was killed before it could stop its
 * processes, and the last step of every stop.
 */
public final class ProcessSweeper {
  /** The environment variable that marks a sandbox's processes. */
  public static final String TAG_VARIABLE = "SANDBOX_PROCESS_TAG";

  private ProcessSweeper() {}

  /** Process ids whose environment carries {@code tag}. */
  public static List<Long> find(String tag) {
    byte[] needle = (TAG_VARIABLE + "=" + tag).getBytes(StandardCharsets.UTF_8);
    List<Long> out = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : procs) {
        long pid = Long.parseLong(p.getFileName().toString());
        if (pid != self && contains(p.resolve("environ"), needle)) {
          out.add(pid);
        }
      }
    } catch (IOException e) {
      // /proc unreadable: nothing can be found
    }
    return out;
  }

  /**
   * Kills (SIGKILL) every process carrying {@code tag}, and their process groups; returns how many
   * were found.
   */
  public static int sweep(String tag) {
    List<Long> pids = find(tag);
    for (long pid : pids) {
      long pgid = processGroup(pid);
      if (pgid > 1 && pgid != processGroup(ProcessHandle.current().pid())) {
        Signals.toGroup(pgid, "KILL");
      }
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    return pids.size();
  }

  /** The process group of {@code pid}, or -1. */
  public static long processGroup(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      String afterComm = stat.substring(stat.lastIndexOf(')') + 2);
      return Long.parseLong(afterComm.split(" ")[2]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static boolean contains(Path environ, byte[] needle) {
    byte[] data;
    try {
      data = Files.readAllBytes(environ);
    } catch (IOException e) {
      return false;
    }
    int start = 0;
    for (int i = 0; i <= data.length; i++) {
      if (i == data.length || data[i] == 0) {
        if (i - start == needle.length && regionEquals(data, start, needle)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }

  private static boolean regionEquals(byte[] data, int from, byte[] needle) {
    for (int j = 0; j < needle.length; j++) {
      if (data[from + j] != needle[j]) {
        return false;
      }
    }
    return true;
  }
}
