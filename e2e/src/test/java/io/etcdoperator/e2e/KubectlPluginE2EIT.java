package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.sandbox.Kubeconfig;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.testing.EtcdKv;
import io.etcdoperator.testing.S3ProxyServer;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubectl plugin as users run it: the real kubectl ({@code /usr/bin/kubectl}) finds {@code
 * deploy/kubectl/kubectl-etcd} on PATH and runs it, which runs the product jar, against the
 * sandbox's API server with the sandbox's kubeconfig (from {@code KUBECONFIG}, as kubectl passes it
 * on). Each command is checked against what the API server then holds: {@code list} (one namespace
 * and {@code -A}), {@code status}, {@code pause} and {@code resume} (the annotation), {@code
 * snapshot} to a claim and to S3 (an EtcdBackup, Complete; s3proxy on loopback), {@code restore} of
 * it as a new cluster (Ready, holding the key written before the snapshot), and the refusals: an
 * unknown cluster, a destination it cannot read. Runs with the backup tests (its snapshot starts an
 * agent JVM).
 */
class KubectlPluginE2EIT {
  static final Path PLUGIN_DIR = Path.of("..", "deploy", "kubectl").toAbsolutePath().normalize();

  @TempDir Path dir;

  record Result(int exit, String out) {}

  /** {@code kubectl etcd ARGS}, as a user types it, within 3 minutes. */
  static Result kubectl(E2E e2e, String... args) throws IOException, InterruptedException {
    return kubectl(e2e.sandbox().config().kubeconfig(), args);
  }

  /** The same with another user's kubeconfig. */
  static Result kubectl(Path kubeconfig, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("/usr/bin/kubectl", "etcd"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("PATH", PLUGIN_DIR + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
    env.put("ETCD_OPERATOR_JAR", ProductOperator.JAR.toAbsolutePath().normalize().toString());
    Process p = pb.start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("kubectl etcd timed out: " + cmd);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    System.out.println("$ " + String.join(" ", cmd) + "  (exit " + p.exitValue() + ")\n" + out);
    return new Result(p.exitValue(), out);
  }

  /**
   * A user whose Role lets them look (get and list EtcdClusters and EtcdBackups, create on
   * pods/proxy) and nothing more: list and status work; pause and a list of every namespace are
   * refused by the API server, the message names the permission and what to do, and nothing
   * changes.
   */
  @Test
  void kubectlEtcdActsWithTheUsersOwnRbac() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/kubectl")), "kubectl is not installed");
    try (E2E e2e = E2E.start(dir.resolve("sandbox"));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(Cluster.THREE_MEMBERS.replace("replicas: 3", "replicas: 1"));
      e2e.awaitReady("test", Duration.ofMinutes(2));
      e2e.client()
          .resource(
              new RoleBuilder()
                  .withNewMetadata()
                  .withName("etcd-viewer")
                  .withNamespace(E2E.NS)
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("etcd.aenix.io")
                  .withResources("etcdclusters", "etcdbackups")
                  .withVerbs("get", "list")
                  .endRule()
                  .addNewRule()
                  .withApiGroups("")
                  .withResources("pods/proxy")
                  .withVerbs("create", "get")
                  .endRule()
                  .build())
          .create();
      e2e.client()
          .resource(
              new RoleBindingBuilder()
                  .withNewMetadata()
                  .withName("alice-views-etcd")
                  .withNamespace(E2E.NS)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "Role", "etcd-viewer")
                  .addNewSubject()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("User")
                  .withName("alice")
                  .endSubject()
                  .build())
          .create();
      Path admin = e2e.sandbox().config().kubeconfig();
      String aliceToken =
          e2e.sandbox().issueToken(new Identity("alice", List.of("system:authenticated"), false));
      Path alice = dir.resolve("alice.kubeconfig");
      Files.writeString(
          alice, Files.readString(admin).replace(Kubeconfig.token(admin), aliceToken));

      Result list = kubectl(alice, "list");
      assertThat(list.exit()).as(list.out()).isZero();
      assertThat(list.out()).containsPattern("\\ntest +1 +1/1 ");
      Result status = kubectl(alice, "status", "test");
      assertThat(status.exit()).as(status.out()).isZero();
      assertThat(status.out()).contains("Voters:       1/1 healthy");

      Result pause = kubectl(alice, "pause", "test");
      assertThat(pause.exit()).isEqualTo(1);
      assertThat(pause.out())
          .contains("User \"alice\" cannot patch resource \"etcdclusters\"")
          .contains("ask for that permission, or use a kubeconfig that has it");
      assertThat(annotations(e2e)).doesNotContainKey(Names.PAUSED_ANNOTATION);
      Result everywhere = kubectl(alice, "list", "-A");
      assertThat(everywhere.exit()).isEqualTo(1);
      assertThat(everywhere.out()).contains("cannot list resource \"etcdclusters\"");
    }
  }

  @Test
  void kubectlEtcdListsInspectsPausesBacksUpAndRestores() throws Exception {
    // As KubectlIT: a machine without kubectl skips this (reported as skipped), this one has it.
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/kubectl")), "kubectl is not installed");
    assertThat(Files.isExecutable(PLUGIN_DIR.resolve("kubectl-etcd"))).isTrue();
    try (E2E e2e = E2E.start(dir.resolve("sandbox"));
        Cluster test = new Cluster(e2e, "test")) {
      e2e.apply(Cluster.THREE_MEMBERS);
      e2e.awaitReady("test", Duration.ofMinutes(2));
      e2e.createClaim("backups", "ReadWriteOnce");
      try (EtcdKv kv = new EtcdKv(Duration.ofSeconds(5), Optional.empty(), URI::getHost)) {
        kv.put(test.clientUrl(), "/plugin/before-snapshot", "kept");
      }

      Result help = kubectl(e2e, "--help");
      assertThat(help.exit()).isZero();
      assertThat(help.out()).contains("list", "status", "pause", "resume", "snapshot", "restore");

      Result list = kubectl(e2e, "list");
      assertThat(list.exit()).isZero();
      assertThat(list.out().lines().toList())
          .first()
          .asString()
          .startsWith("NAME")
          .contains("VOTERS", "LEADER", "READY", "LAST BACKUP");
      assertThat(list.out())
          .containsPattern("\\ntest +3 +3/3 +test-[0-2] +3\\.5\\.0 +[0-9]+ KiB +True +- +");
      Result all = kubectl(e2e, "list", "-A");
      assertThat(all.out()).startsWith("NAMESPACE").containsPattern("\\ndefault +test +3 +3/3");
      Result other = kubectl(e2e, "list", "-n", "kube-system");
      assertThat(other.out()).contains("No etcd clusters found in namespace kube-system.");

      Result status = kubectl(e2e, "status", "test");
      assertThat(status.exit()).isZero();
      assertThat(status.out())
          .contains("Voters:       3/3 healthy", "Ready:        True (", "DB SIZE", "RAFT LAG")
          .containsPattern("test-0 +[0-9a-f]+ +Voter +true .*3\\.5\\.30 +node-[0-9] +[0-9]+ KiB");
      Result missing = kubectl(e2e, "status", "nope");
      assertThat(missing.exit()).isEqualTo(1);
      assertThat(missing.out())
          .contains("etcdcluster nope not found in namespace default", "kubectl etcd list -A");

      // Maintenance on the members, through the API server's pods/proxy.
      Result defrag = kubectl(e2e, "defrag", "test");
      assertThat(defrag.exit()).as(defrag.out()).isZero();
      String leader = test.leader().orElseThrow();
      assertThat(defrag.out().lines().filter(l -> l.contains(" defragmented: ")).toList())
          .as("each member once, the leader last")
          .hasSize(3)
          .last()
          .asString()
          .startsWith(leader + " defragmented: ");
      String follower = leader.equals("test-1") ? "test-2" : "test-1";
      Result moved = kubectl(e2e, "move-leader", "test", "--to", follower);
      assertThat(moved.exit()).as(moved.out()).isZero();
      assertThat(moved.out()).contains("leadership moved from " + leader + " to " + follower);
      assertThat(e2e.status("test").getLeader()).isEqualTo(follower);
      Result nobody = kubectl(e2e, "move-leader", "test", "--to", "test-7");
      assertThat(nobody.exit()).isEqualTo(1);
      assertThat(nobody.out()).contains("--to test-7: no such member");
      // A member that does not answer: status says which and why, the rest still shows.
      e2e.sandbox().faults().freeze(E2E.NS, "test-0");
      try {
        Result frozen = kubectl(e2e, "status", "test");
        assertThat(frozen.exit()).isZero();
        assertThat(frozen.out())
            .containsPattern("\\n  \\? test-0: (HTTP 503|no answer within 10 s)")
            .containsPattern("test-0 +[0-9a-f]+ +Voter .* +\\? +\\? +\\? +\\? ");
      } finally {
        e2e.sandbox().faults().thaw(E2E.NS, "test-0");
      }
      e2e.awaitReady("test", Duration.ofMinutes(1));

      assertThat(kubectl(e2e, "pause", "test").out()).contains("etcdcluster/test paused");
      assertThat(annotations(e2e)).containsEntry(Names.PAUSED_ANNOTATION, "true");
      assertThat(kubectl(e2e, "resume", "test").out()).contains("etcdcluster/test resumed");
      assertThat(annotations(e2e)).doesNotContainKey(Names.PAUSED_ANNOTATION);

      Result wrong = kubectl(e2e, "snapshot", "test", "--to", "ftp://x");
      assertThat(wrong.exit()).isEqualTo(1);
      assertThat(wrong.out()).contains("pvc://CLAIM[/DIRECTORY] or s3://BUCKET[/PREFIX]");

      Result snapshot =
          kubectl(e2e, "snapshot", "test", "--to", "pvc://backups/plugin", "--name", "first");
      assertThat(snapshot.exit()).as(snapshot.out()).isZero();
      assertThat(snapshot.out())
          .contains("etcdbackup/first Complete: pvc://backups/plugin/first.db");
      EtcdBackup backup = e2e.client().resources(EtcdBackup.class).withName("first").get();
      assertThat(backup.getStatus().getPhase()).isEqualTo("Complete");
      assertThat(kubectl(e2e, "list").out()).containsPattern("\\ntest .* True +[0-9]+s ago");

      // to S3 (s3proxy on loopback), with the credentials' Secret
      try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), "plugin-backups")) {
        e2e.createS3Credentials("s3-credentials", S3ProxyServer.SECRET_KEY);
        Result toS3 =
            kubectl(
                e2e,
                "snapshot",
                "test",
                "--to",
                "s3://plugin-backups/nightly",
                "--endpoint",
                s3.endpoint(),
                "--credentials",
                "s3-credentials",
                "--name",
                "second");
        assertThat(toS3.exit()).as(toS3.out()).isZero();
        assertThat(toS3.out()).contains("etcdbackup/second Complete: s3://plugin-backups/nightly");
        try (var stored = Files.walk(s3.bucketDir("plugin-backups"))) {
          assertThat(stored.filter(Files::isRegularFile).map(f -> f.getFileName().toString()))
              .anyMatch(f -> f.contains("second"));
        }
      }

      Result restore = kubectl(e2e, "restore", "first", "--as", "restored");
      assertThat(restore.exit()).as(restore.out()).isZero();
      assertThat(restore.out()).contains("etcdcluster/restored Ready");
      EtcdCluster restored = e2e.cluster("restored").get();
      assertThat(restored.getSpec().getBootstrap().getRestore().getSource().getPvc().getSubPath())
          .isEqualTo("plugin/first.db");
      try (Cluster r = new Cluster(e2e, "restored");
          EtcdKv kv = new EtcdKv(Duration.ofSeconds(5), Optional.empty(), URI::getHost)) {
        assertThat(kv.get(r.clientUrl(), "/plugin/before-snapshot", false))
            .as("the key written before the snapshot, read from the restored cluster")
            .isPresent();
      }
      assertThat(kubectl(e2e, "list").out()).contains("\nrestored ", "\ntest ");
    }
  }

  private static Map<String, String> annotations(E2E e2e) {
    Map<String, String> a = e2e.cluster("test").get().getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
