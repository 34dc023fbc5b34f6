package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.marcnuri.helm.Helm;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.sandbox.SandboxConfig;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.openshift.api.model.monitoring.v1.PodMetricsEndpoint;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitorSpec;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpec;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator as users install it: {@code helm install} of {@code deploy/helm/etcd-operator} (the
 * real Helm, through the sandbox's kubeconfig) makes the chart's Deployment, whose two pods the
 * sandbox's kubelet runs from the operator's image as the Dockerfile defines it (entry point, JVM
 * options, environment; the image's jar is the product jar built here), with the projected
 * ServiceAccount token and the cluster's CA at the in-cluster path, the API server's address in the
 * environment, no kubeconfig, and the chart's 512 MiB memory limit, which the JVM sees. The chart's
 * probes make the pods Ready; one of the two leads. Their ServiceAccount tokens expire after 12 s
 * and the kubelet renews them (an hour on a real cluster): the operator reads its token again. With
 * the prometheus-operator's CRDs installed ({@link MonitoringCrds}), the chart's PodMonitor selects
 * the operator's pods at a port serving its metrics, and its PrometheusRule holds every alert of
 * its template. Then: a 3-member cluster becomes Ready; the leader's pod is deleted and the other
 * replica takes over within the lease's 15 s (the stopping leader releases it; the gap is printed)
 * while the Deployment replaces the pod; {@code helm upgrade} to a new operator version (here an
 * image tag) replaces both operator pods and no member, and a second cluster becomes Ready under
 * the new version; {@code helm uninstall} leaves both clusters' members running; installing again
 * adopts them without restarting any member, and a third cluster becomes Ready.
 *
 * <p>The sandbox installs {@code deploy/cluster-scope.yaml}'s RBAC for an operator of its own; it
 * is deleted first, as a user's cluster has none, so that the chart's objects are the ones the
 * operator runs under (Helm would refuse to take over objects it did not make).
 */
class ChartE2EIT {
  private static final Path CHART = Path.of("..", "deploy", "helm", "etcd-operator");
  private static final String NS = "etcd-operator";
  private static final String RELEASE = "etcd-operator";

  @TempDir Path dir;

  /** The lifetime of the pods' ServiceAccount tokens here (an hour on a real cluster). */
  private static final Duration TOKEN_TTL = Duration.ofSeconds(12);

  @Test
  void theChartsDeploymentRunsTheImageElectsALeaderAndSurvivesReinstalling() throws Exception {
    assertThat(ProductOperator.JAR).as("the product jar, built before this module").exists();
    System.setProperty("etcd-operator.image.jar", ProductOperator.JAR.toAbsolutePath().toString());
    SandboxConfig config = SandboxConfig.defaults(dir.resolve("sandbox")).withTokenTtl(TOKEN_TTL);
    try (E2E e2e = E2E.withoutOperator(config)) {
      KubernetesClient k = e2e.client();
      removeTheSandboxsOwnRbac(k);
      MonitoringCrds.install(k, dir.resolve("monitoring-crds"));
      Path kubeconfig = config.kubeconfig();

      long installed = System.nanoTime();
      install(kubeconfig);
      awaitAvailable(k, 2);
      System.out.printf(
          "chart: helm install -> 2 operator pods Ready in %d ms%n",
          (System.nanoTime() - installed) / 1_000_000);
      podMonitorScrapesTheOperatorsPods(k);
      prometheusRuleHasEveryAlert(k);
      Pod operatorPod = operatorPods(k).get(0);
      assertThat(operatorPod.getSpec().getContainers().get(0).getImage())
          .isEqualTo("localhost/etcd-operator:e2e");
      assertThat(operatorPod.getSpec().getVolumes())
          .anyMatch(v -> v.getName().startsWith("kube-api-access-") && v.getProjected() != null);
      // the JVM sees the container's limit: the image's options give the heap half of it
      assertThat(metric(operatorPod, "jvm_memory_max_bytes{area=\"heap\""))
          .isBetween(200.0 * 1024 * 1024, 260.0 * 1024 * 1024);

      e2e.apply(Cluster.THREE_MEMBERS);
      try (Cluster test = new Cluster(e2e, "test")) {
        test.awaitConverged(1, 3, Duration.ofMinutes(3));
        Map<String, String> members = memberPods(k);

        // the leader's pod goes; the other replica takes over and keeps managing
        String leader = awaitLeader(k, null);
        long deleted = System.nanoTime();
        k.pods().inNamespace(NS).withName(leader).delete();
        String next = awaitLeader(k, leader);
        long gap = (System.nanoTime() - deleted) / 1_000_000;
        System.out.printf(
            "chart: leader %s deleted, %s leads %d ms later (Lease: 15 s)%n", leader, next, gap);
        // the stopping leader releases its Lease: no wait for the lease to run out
        assertThat(gap).as("handover after the leader's pod was deleted, ms").isLessThan(15_000);
        awaitAvailable(k, 2);

        // the new leader's first token has expired by now: it reads the renewed one and acts
        Instant nextStarted =
            Instant.parse(
                k.pods().inNamespace(NS).withName(next).get().getMetadata().getCreationTimestamp());
        await()
            .atMost(TOKEN_TTL.plusSeconds(10))
            .until(() -> Instant.now().isAfter(nextStarted.plus(TOKEN_TTL).plusSeconds(2)));
        e2e.apply(ONE_MEMBER.formatted("late", E2E.NS));
        try (Cluster late = new Cluster(e2e, "late")) {
          late.awaitConverged(1, 1, Duration.ofMinutes(2));
        }

        // a new operator version (here a new image tag): the operator's pods are replaced one by
        // one, the members are not
        new Helm(CHART)
            .upgrade()
            .withName(RELEASE)
            .withNamespace(NS)
            .withKubeConfig(kubeconfig)
            .set("image.tag", "e2e-next")
            .call();
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    operatorPods(k).size() == 2
                        && operatorPods(k).stream()
                            .allMatch(
                                p ->
                                    p.getSpec()
                                        .getContainers()
                                        .get(0)
                                        .getImage()
                                        .endsWith(":e2e-next")));
        awaitAvailable(k, 2);
        awaitLeader(k, null);
        e2e.apply(Cluster.THREE_MEMBERS.replace("name: test", "name: after"));
        try (Cluster after = new Cluster(e2e, "after")) {
          after.awaitConverged(1, 3, Duration.ofMinutes(3));
        }
        assertThat(memberPods(k)).containsAllEntriesOf(members);

        // uninstalled: the clusters keep running; installed again: adopted, nothing restarts
        Helm.uninstall(RELEASE).withNamespace(NS).withKubeConfig(kubeconfig).call();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> operatorPods(k).isEmpty() && deployment(k) == null);
        Map<String, String> before = memberPods(k);
        assertThat(before).containsAllEntriesOf(members).hasSize(7);
        assertThat(test.converged(1, 3)).as("test still Ready with no operator").isTrue();
        install(kubeconfig);
        awaitAvailable(k, 2);
        awaitLeader(k, null);
        e2e.apply(Cluster.THREE_MEMBERS.replace("name: test", "name: again"));
        try (Cluster again = new Cluster(e2e, "again")) {
          again.awaitConverged(1, 3, Duration.ofMinutes(3));
        }
        Map<String, String> afterReinstall = memberPods(k);
        assertThat(afterReinstall).containsAllEntriesOf(before);
        assertThat(test.converged(1, 3)).isTrue();
      }
    }
  }

  /**
   * The chart's namespaced install ({@code watchNamespaces}): Roles in the watched namespace and no
   * ClusterRole; a cluster there becomes Ready, one in another namespace is never touched. With
   * {@code -Plong} only: README's command has the operator's namespaced mode in
   * NamespaceScopeE2EIT, and the chart's rendering of it in the chart's own test.
   */
  @Test
  void theNamespacedInstallManagesOnlyItsNamespace() throws Exception {
    assumeTrue(Boolean.getBoolean("long.all.cases"), "a case beyond one per feature: -Plong");
    System.setProperty("etcd-operator.image.jar", ProductOperator.JAR.toAbsolutePath().toString());
    SandboxConfig config = SandboxConfig.defaults(dir.resolve("sandbox"));
    try (E2E e2e = E2E.withoutOperator(config)) {
      KubernetesClient k = e2e.client();
      removeTheSandboxsOwnRbac(k);
      k.namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName("team-b").endMetadata().build())
          .create();
      new Helm(CHART)
          .install()
          .withName(RELEASE)
          .withNamespace(NS)
          .withKubeConfig(config.kubeconfig())
          .set("image.tag", "e2e")
          .set("replicaCount", 1)
          .set("watchNamespaces[0]", E2E.NS)
          .call();
      awaitAvailable(k, 1);
      assertThat(k.rbac().clusterRoles().withName(RELEASE).get()).isNull();
      assertThat(k.rbac().roles().inNamespace(E2E.NS).withName(RELEASE).get()).isNotNull();

      e2e.apply(ONE_MEMBER.formatted("one", "team-b"));
      e2e.apply(ONE_MEMBER.formatted("one", E2E.NS));
      try (Cluster watched = new Cluster(e2e, "one")) {
        watched.awaitConverged(1, 1, Duration.ofMinutes(2));
      }
      assertThat(k.apps().statefulSets().inNamespace("team-b").list().getItems()).isEmpty();
      assertThat(k.resources(EtcdCluster.class).inNamespace("team-b").withName("one").get())
          .extracting(EtcdCluster::getStatus)
          .isNull();
    }
  }

  private static final String ONE_MEMBER =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: %s
        namespace: %s
      spec:
        replicas: 1
      """;

  private static void install(Path kubeconfig) {
    new Helm(CHART)
        .install()
        .withName(RELEASE)
        .withNamespace(NS)
        .createNamespace()
        .withKubeConfig(kubeconfig)
        .set("image.tag", "e2e")
        .set("metrics.podMonitor.enabled", true)
        .set("metrics.prometheusRule.enabled", true)
        .call();
  }

  /**
   * The chart's PodMonitor, as the API server kept it: its selector picks exactly the operator's
   * pods, and each endpoint names a port of theirs where the operator's metrics are served.
   */
  private static void podMonitorScrapesTheOperatorsPods(KubernetesClient k) throws Exception {
    PodMonitorSpec spec =
        k.resources(MonitoringCrds.PodMonitor.class)
            .inNamespace(NS)
            .withName(RELEASE)
            .require()
            .getSpec();
    List<String> selected =
        k
            .pods()
            .inNamespace(NS)
            .withLabels(spec.getSelector().getMatchLabels())
            .list()
            .getItems()
            .stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .map(p -> p.getMetadata().getName())
            .sorted()
            .toList();
    assertThat(selected)
        .isEqualTo(operatorPods(k).stream().map(p -> p.getMetadata().getName()).sorted().toList());
    assertThat(spec.getPodMetricsEndpoints()).isNotEmpty();
    for (PodMetricsEndpoint endpoint : spec.getPodMetricsEndpoints()) {
      assertThat(endpoint.getHonorLabels()).as("honorLabels, kept by the schema").isTrue();
      for (Pod pod : operatorPods(k)) {
        int port =
            pod.getSpec().getContainers().stream()
                .flatMap(c -> c.getPorts().stream())
                .filter(cp -> endpoint.getPort().equals(cp.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no port named " + endpoint.getPort()))
                .getContainerPort();
        assertThat(scrape(pod, port, endpoint.getPath())).contains("etcd_operator_");
      }
    }
  }

  /** The chart's PrometheusRule, as the API server kept it: every alert its template defines. */
  private static void prometheusRuleHasEveryAlert(KubernetesClient k) throws Exception {
    PrometheusRuleSpec spec =
        k.resources(MonitoringCrds.PrometheusRule.class)
            .inNamespace(NS)
            .withName(RELEASE)
            .require()
            .getSpec();
    long inTemplate =
        Files.readString(CHART.resolve("templates/prometheusrule.yaml"))
            .lines()
            .filter(l -> l.trim().startsWith("- alert:"))
            .count();
    List<Rule> rules = spec.getGroups().stream().flatMap(g -> g.getRules().stream()).toList();
    assertThat(rules).hasSize((int) inTemplate);
    assertThat(rules)
        .allSatisfy(
            r -> {
              assertThat(r.getAlert()).isNotBlank();
              assertThat(r.getExpr().getStrVal()).contains("etcd_operator_");
            });
  }

  private static String scrape(Pod pod, int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://" + pod.getStatus().getPodIP() + ":" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The objects of deploy/cluster-scope.yaml but its Namespace, which the sandbox made. */
  private static void removeTheSandboxsOwnRbac(KubernetesClient k) {
    k.rbac().clusterRoleBindings().withName("etcd-operator").delete();
    k.rbac().clusterRoles().withName("etcd-operator").delete();
    k.rbac().roleBindings().inNamespace(NS).delete();
    k.rbac().roles().inNamespace(NS).delete();
    k.serviceAccounts().inNamespace(NS).withName("etcd-operator").delete();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> k.serviceAccounts().inNamespace(NS).withName("etcd-operator").get() == null);
  }

  private static Deployment deployment(KubernetesClient k) {
    return k.apps().deployments().inNamespace(NS).withName(RELEASE).get();
  }

  private static void awaitAvailable(KubernetesClient k, int replicas) {
    try {
      awaitAvailableOrThrow(k, replicas);
    } catch (ConditionTimeoutException e) {
      StringBuilder b = new StringBuilder("the chart's Deployment not available: ");
      b.append(deployment(k) == null ? "no Deployment" : deployment(k).getStatus()).append('\n');
      for (Pod p : k.pods().inNamespace(NS).list().getItems()) {
        b.append(p.getMetadata().getName()).append(' ').append(p.getStatus()).append('\n');
        try {
          String log = k.pods().inNamespace(NS).withName(p.getMetadata().getName()).getLog();
          b.append(log, Math.max(0, log.length() - 4000), log.length()).append('\n');
        } catch (RuntimeException ignored) {
          b.append("(no log)\n");
        }
      }
      throw new AssertionError(b.toString(), e);
    }
  }

  private static void awaitAvailableOrThrow(KubernetesClient k, int replicas) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Deployment d = deployment(k);
              return d != null
                  && d.getStatus() != null
                  && Objects.equals(d.getStatus().getAvailableReplicas(), replicas)
                  && Objects.equals(d.getStatus().getUpdatedReplicas(), replicas);
            });
  }

  private static List<Pod> operatorPods(KubernetesClient k) {
    return k.pods().inNamespace(NS).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(RELEASE + "-"))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  /** Member pod name to uid and restart count, of every cluster in the default namespace. */
  private static Map<String, String> memberPods(KubernetesClient k) {
    return k.pods().inNamespace(E2E.NS).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .collect(
            Collectors.toMap(
                p -> p.getMetadata().getName(),
                p ->
                    p.getMetadata().getUid()
                        + " restarts "
                        + p.getStatus().getContainerStatuses().stream()
                            .mapToInt(s -> s.getRestartCount())
                            .sum()));
  }

  /** The Lease's holder once it is a running operator pod other than {@code not}. */
  private static String awaitLeader(KubernetesClient k, String not) {
    String[] holder = new String[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              Lease l = k.leases().inNamespace(NS).withName("etcd-operator-leader").get();
              String h = l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
              holder[0] = h;
              return h != null
                  && !h.equals(not)
                  && operatorPods(k).stream().anyMatch(p -> p.getMetadata().getName().equals(h));
            });
    return holder[0];
  }

  /** A sample of the operator pod's /metrics, read at its pod address as Prometheus would. */
  private static double metric(Pod pod, String prefix) throws Exception {
    return scrape(pod, 8080, "/metrics")
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
