package io.etcdoperator.sandbox;

import java.nio.file.Path;
import java.time.Duration;

/** A sandbox with short timings, for tests. */
final class SandboxFixture {
  private SandboxFixture() {}

  static SandboxConfig fastConfig(Path dir) {
    return SandboxConfig.defaults(dir)
        .withRestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(4))
        .withMaxGracePeriod(Duration.ofSeconds(5));
  }

  static Sandbox start(Path dir) {
    return Sandbox.start(fastConfig(dir), OperatorLauncher.NONE);
  }
}
