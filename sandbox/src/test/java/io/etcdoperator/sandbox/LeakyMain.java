package io.etcdoperator.sandbox;

import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A child JVM for {@link NoLeftoversIT}: starts a sandbox in the given directory with one pod whose
 * shell forks a grandchild, prints {@code READY} once it runs, and waits to be killed.
 */
public final class LeakyMain {
  private LeakyMain() {}

  public static void main(String[] args) throws Exception {
    Sandbox sandbox =
        Sandbox.start(SandboxFixture.fastConfig(Path.of(args[0])), OperatorLauncher.NONE);
    sandbox
        .client()
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("leaky")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withContainers(Manifests.shell("main", "sleep 3600 & wait"))
                .endSpec()
                .build())
        .create();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      var h = sandbox.kubelet().pod("default", "leaky");
      if (h != null && h.pid("main") > 0) {
        System.out.println("READY " + h.pid("main"));
        System.out.flush();
        break;
      }
      Thread.sleep(50);
    }
    Thread.sleep(Duration.ofMinutes(5).toMillis());
  }
}
