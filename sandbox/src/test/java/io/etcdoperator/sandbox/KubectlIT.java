package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.testing.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The machine's kubectl against a sandbox, through {@code <dir>/kubeconfig}. */
class KubectlIT {
  @TempDir static Path dir;
  static Sandbox sandbox;

  record Result(int code, String out) {}

  @BeforeAll
  static void start() {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/kubectl")), "kubectl is not installed");
    sandbox = SandboxFixture.start(dir);
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  static Result kubectl(String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of("/usr/bin/kubectl", "--kubeconfig", sandbox.config().kubeconfig().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("kubectl timed out: " + cmd);
    }
    return new Result(
        p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  static Path file(String name, String yaml) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, yaml);
    return f;
  }

  static void ok(Result r) {
    assertThat(r.code()).as(r.out()).isZero();
  }

  @Test
  void etcdClustersCanBeCreatedAppliedScaledPatchedAndDeleted() throws Exception {
    String manifest =
        "apiVersion: etcd.aenix.io/v1alpha1\nkind: EtcdCluster\nmetadata:\n  name: test\n  namespace: default\nspec:\n  replicas: 3\n";
    ok(kubectl("create", "-f", file("c.yaml", manifest).toString()));
    assertThat(kubectl("get", "etcdclusters").out()).contains("test").contains("REPLICAS");
    assertThat(kubectl("get", "etcd", "test", "-o", "jsonpath={.spec.replicas}").out())
        .isEqualTo("3");
    ok(
        kubectl(
            "apply",
            "-f",
            file("c5.yaml", manifest.replace("replicas: 3", "replicas: 5")).toString()));
    assertThat(kubectl("get", "etcdcluster", "test", "-o", "jsonpath={.spec.replicas}").out())
        .isEqualTo("5");
    ok(kubectl("scale", "etcdcluster", "test", "--replicas=4"));
    assertThat(kubectl("get", "etcdcluster", "test", "-o", "jsonpath={.spec.replicas}").out())
        .isEqualTo("4");
    ok(
        kubectl(
            "patch", "etcdcluster", "test", "--type=merge", "-p", "{\"spec\":{\"replicas\":3}}"));
    assertThat(kubectl("get", "etcdcluster", "test", "-o", "jsonpath={.spec.replicas}").out())
        .isEqualTo("3");
    ok(kubectl("delete", "etcdcluster", "test"));
    // (other tests of this class share the sandbox: only "test" is looked for)
    assertThat(kubectl("get", "etcdcluster", "test").out()).contains("NotFound");
  }

  @Test
  void createTokenMintsAServiceAccountsTokenThatExpires() throws Exception {
    Result token = kubectl("create", "token", "default", "-n", "default", "--duration=10m");
    ok(token);
    String t = token.out().trim();
    Result asTheAccount = kubectl("--token", t, "--user", "", "get", "secrets", "-n", "default");
    assertThat(asTheAccount.out()).contains("system:serviceaccount:default:default");
    assertThat(asTheAccount.out()).contains("Forbidden");

    Result tooShort = kubectl("create", "token", "default", "-n", "default", "--duration=1m");
    assertThat(tooShort.code()).isNotZero();
    assertThat(tooShort.out()).contains("may not specify a duration less than 10 minutes");
    Result missing = kubectl("create", "token", "nobody", "-n", "default");
    assertThat(missing.code()).isNotZero();
    assertThat(missing.out()).contains("serviceaccounts \"nobody\" not found");
  }

  @Test
  void podsCanBeAppliedListedLoggedPatchedAndDeleted() throws Exception {
    String pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: hello\n  namespace: default\n  labels: {app: hello}\n"
            + "spec:\n  containers:\n  - name: main\n    image: busybox\n    command: [/bin/sh, -c, 'echo hello from the sandbox; exec sleep 3600']\n";
    ok(kubectl("apply", "-f", file("p.yaml", pod).toString()));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(kubectl("get", "pod", "hello", "-o", "jsonpath={.status.phase}").out())
                    .isEqualTo("Running"));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(kubectl("get", "pods").out())
                    .contains("READY", "STATUS", "RESTARTS")
                    .containsPattern("hello\\s+1/1\\s+Running\\s+0"));
    assertThat(kubectl("get", "pods", "-o", "wide").out()).contains("IP").contains("127.2");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(kubectl("logs", "hello").out()).contains("hello from the sandbox"));
    ok(
        kubectl(
            "apply",
            "-f",
            file("p2.yaml", pod.replace("{app: hello}", "{app: hello, tier: web}")).toString()));
    assertThat(kubectl("get", "pod", "hello", "-o", "jsonpath={.metadata.labels.tier}").out())
        .isEqualTo("web");
    assertThat(
            kubectl("get", "pod", "hello", "-o", "jsonpath={.spec.containers[0].command[0]}").out())
        .isEqualTo("/bin/sh");
    ok(kubectl("patch", "pod", "hello", "-p", "{\"metadata\":{\"annotations\":{\"note\":\"x\"}}}"));
    assertThat(kubectl("get", "pod", "hello", "-o", "jsonpath={.metadata.annotations.note}").out())
        .isEqualTo("x");
    // --wait=false: after getWatchFollowsChanges in the same sandbox, kubectl's wait for the
    // deletion (a watch through the kubeconfig's front) hung once; the kubelet is checked below.
    ok(kubectl("delete", "pod", "hello", "--wait=false"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> sandbox.kubelet().pod("default", "hello") == null);
  }

  @Test
  void getWatchFollowsChanges() throws Exception {
    String pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: watched\n  namespace: default\n"
            + "spec:\n  containers:\n  - name: main\n    image: busybox\n    command: [/bin/sh, -c, 'exec sleep 3600']\n";
    ok(kubectl("apply", "-f", file("w.yaml", pod).toString()));
    List<String> cmd =
        List.of(
            "/usr/bin/kubectl",
            "--kubeconfig",
            sandbox.config().kubeconfig().toString(),
            "get",
            "pod",
            "watched",
            "-w",
            "--request-timeout=60s");
    Process watch = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      java.io.BufferedReader out =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).contains("NAME", "READY", "STATUS");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> sandbox.kubelet().pod("default", "watched") != null);
      ok(kubectl("delete", "pod", "watched", "--wait=false"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      String line;
      boolean terminating = false;
      while (!terminating && System.nanoTime() < deadline && (line = out.readLine()) != null) {
        terminating = line.contains("watched") && line.contains("Terminating");
      }
      assertThat(terminating).as("the watch showed the pod Terminating").isTrue();
    } finally {
      watch.destroyForcibly();
    }
  }

  /**
   * What kubectl sends as protobuf (the typed commands: create namespace, secret, configmap, auth
   * can-i), as the project's documentation and users use them.
   */
  @Test
  void theCreateCommandsThatSendProtobufWork() throws Exception {
    ok(kubectl("create", "namespace", "made-by-kubectl"));
    assertThat(kubectl("get", "namespace", "made-by-kubectl", "-o", "name").out().trim())
        .isEqualTo("namespace/made-by-kubectl");
    ok(kubectl("create", "secret", "generic", "s1", "--from-literal=password=hunter2"));
    assertThat(kubectl("get", "secret", "s1", "-o", "jsonpath={.data.password}").out())
        .isEqualTo("aHVudGVyMg==");
    ok(kubectl("create", "configmap", "c1", "--from-literal=a=b"));
    assertThat(kubectl("get", "configmap", "c1", "-o", "jsonpath={.data.a}").out()).isEqualTo("b");
    var leaf = TestPki.ca("kubectl-ca").leaf("made-by-kubectl").serverAuth().issue();
    Path crt = file("tls.crt", leaf.certPem());
    Path key = file("tls.key", leaf.keyPem());
    ok(kubectl("create", "secret", "tls", "t1", "--cert=" + crt, "--key=" + key));
    assertThat(kubectl("get", "secret", "t1", "-o", "jsonpath={.type}").out())
        .isEqualTo("kubernetes.io/tls");
    assertThat(kubectl("auth", "can-i", "delete", "pods").out().trim()).isEqualTo("yes");
  }

  @Test
  void statefulSetsCanBeScaled() throws Exception {
    sandbox
        .client()
        .apps()
        .statefulSets()
        .resource(Manifests.statefulSet("web", 1, Manifests.shell("main", "exec sleep 3600")))
        .create();
    ok(kubectl("scale", "statefulset", "web", "--replicas=2"));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(
                        kubectl("get", "sts", "web", "-o", "jsonpath={.status.readyReplicas}")
                            .out())
                    .isEqualTo("2"));
    assertThat(kubectl("get", "pvc").out()).contains("data-web-0", "data-web-1");
  }

  @Test
  void describeShowsTheEventsOfTheObjectOnly() throws Exception {
    String manifest =
        "apiVersion: etcd.aenix.io/v1alpha1\nkind: EtcdCluster\nmetadata:\n  name: described\n  namespace: default\nspec:\n  replicas: 1\n";
    ok(kubectl("apply", "-f", file("d.yaml", manifest).toString()));
    var cluster =
        sandbox
            .client()
            .genericKubernetesResources("etcd.aenix.io/v1alpha1", "EtcdCluster")
            .inNamespace("default")
            .withName("described")
            .get();
    for (String[] e :
        new String[][] {
          {"described", cluster.getMetadata().getUid(), "MemberAdded", "added described-0"},
          {"other", "uid-of-other", "NotMine", "an event of another cluster"}
        }) {
      sandbox
          .client()
          .v1()
          .events()
          .inNamespace("default")
          .resource(
              new io.fabric8.kubernetes.api.model.EventBuilder()
                  .withNewMetadata()
                  .withName(e[0] + "." + e[2].toLowerCase())
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion("etcd.aenix.io/v1alpha1")
                  .withKind("EtcdCluster")
                  .withName(e[0])
                  .withNamespace("default")
                  .withUid(e[1])
                  .endInvolvedObject()
                  .withType("Normal")
                  .withReason(e[2])
                  .withMessage(e[3])
                  .withNewSource("etcd-operator", null)
                  .withFirstTimestamp(java.time.Instant.now().toString())
                  .withLastTimestamp(java.time.Instant.now().toString())
                  .withCount(1)
                  .build())
          .create();
    }
    Result describe = kubectl("describe", "etcdcluster", "described");
    ok(describe);
    assertThat(describe.out())
        .contains("Events:")
        .contains("MemberAdded")
        .contains("added described-0")
        .doesNotContain("NotMine");
  }

  @Test
  void whatTheSandboxDoesNotServeIsSaidPlainly() throws Exception {
    Result exec = kubectl("exec", "nope", "--", "true");
    assertThat(exec.code()).isNotZero();
    String pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: target\n  namespace: default\n"
            + "spec:\n  containers:\n  - name: main\n    image: busybox\n    command: [/bin/sh, -c, 'exec sleep 3600']\n";
    ok(kubectl("apply", "-f", file("t.yaml", pod).toString()));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                sandbox.kubelet().pod("default", "target") != null
                    && sandbox.kubelet().pod("default", "target").pid(null) > 0);
    Result refused = kubectl("exec", "target", "--", "etcdctl", "endpoint", "health");
    assertThat(refused.code()).isNotZero();
    assertThat(refused.out())
        .contains("the sandbox does not serve pods/exec")
        .contains("nsenter --target " + sandbox.kubelet().pod("default", "target").pid(null));
    assertThat(kubectl("api-resources").out())
        .contains("etcdclusters", "etcd", "etcd.aenix.io/v1alpha1", "statefulsets", "pods");
  }
}
