package io.etcdoperator.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every process the test utilities started and that may still run. A JVM shutdown hook kills them
 * all, so that a test run that dies half-way (or never closes its cluster) leaves no etcd behind.
 * Only a JVM killed with SIGKILL escapes this.
 */
final class LocalProcesses {
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(Process::destroyForcibly), "local-etcd-reaper"));
  }

  private LocalProcesses() {}

  static void register(Process process) {
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
  }
}
