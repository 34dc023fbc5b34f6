package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API server's side of nodes, without controllers or kubelet: binding, eviction without a
 * computed budget, the DefaultTolerationSeconds admission, deletion of unbound pods, field
 * selectors on pod lists.
 */
class NodeApiTest {
  ApiServer api;
  KubernetesClient k;

  @BeforeEach
  void start() throws Exception {
    api = new ApiServer();
    api.start(InetAddress.getByName("127.0.0.1"), 0);
    api.setDefaultTolerationSeconds(7);
    k = api.newClient();
    k.namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName("default")
                .endMetadata()
                .build())
        .create();
  }

  @AfterEach
  void stop() {
    k.close();
    api.close();
  }

  private Pod pod(String name) {
    return k.pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .addToLabels("app", "x")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(api.url() + path))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + api.adminToken())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return SelfSigned.httpClient(Duration.ofSeconds(5))
        .send(r, HttpResponse.BodyHandlers.ofString());
  }

  private static String binding(String pod, String node) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\""
        + pod
        + "\"},\"target\":{\"kind\":\"Node\",\"name\":\""
        + node
        + "\"}}";
  }

  private void bind(String pod, String node) throws Exception {
    assertThat(
            post("/api/v1/namespaces/default/pods/" + pod + "/binding", binding(pod, node))
                .statusCode())
        .isEqualTo(201);
  }

  @Test
  void aPodIsBoundOnceAndItsNodeCannotBeChangedByAnUpdate() throws Exception {
    pod("a");
    HttpResponse<String> ok =
        post("/api/v1/namespaces/default/pods/a/binding", binding("a", "node-1"));
    assertThat(ok.statusCode()).isEqualTo(201);
    assertThat(ok.body()).contains("\"status\":\"Success\"");
    Pod bound = k.pods().inNamespace("default").withName("a").get();
    assertThat(bound.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(bound.getStatus().getConditions())
        .anyMatch(c -> c.getType().equals("PodScheduled") && c.getStatus().equals("True"));

    HttpResponse<String> again =
        post("/api/v1/namespaces/default/pods/a/binding", binding("a", "node-2"));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("pod a is already assigned to node \\\"node-1\\\"");
    assertThat(post("/api/v1/namespaces/default/bindings", binding("a", "node-2")).statusCode())
        .isEqualTo(409);
    assertThat(
            post("/api/v1/namespaces/default/pods/nobody/binding", binding("nobody", "node-1"))
                .statusCode())
        .isEqualTo(404);
    pod("b");
    HttpResponse<String> noTarget =
        post("/api/v1/namespaces/default/pods/b/binding", binding("b", ""));
    assertThat(noTarget.statusCode()).isEqualTo(422);
    assertThat(noTarget.body()).contains("target.name: Required value");
    // through the collection, as fabric8's bindings() sends it
    assertThat(post("/api/v1/namespaces/default/bindings", binding("b", "node-0")).statusCode())
        .isEqualTo(201);

    assertThatThrownBy(
            () ->
                k.pods()
                    .inNamespace("default")
                    .withName("a")
                    .edit(
                        p -> {
                          p.getSpec().setNodeName("node-2");
                          return p;
                        }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("pod updates may not change fields");

    // a pod being deleted (bound, so it stays Terminating) cannot be bound
    pod("c");
    bind("c", "node-0");
    k.pods().inNamespace("default").withName("c").delete();
    assertThat(k.pods().inNamespace("default").withName("c").get()).isNotNull();
  }

  @Test
  void aPodBeingDeletedIsNotBoundAndAnUnboundPodIsDeletedAtOnce() throws Exception {
    pod("pending");
    k.pods().inNamespace("default").withName("pending").delete();
    assertThat(k.pods().inNamespace("default").withName("pending").get()).isNull();

    Pod p = pod("terminating");
    p.getMetadata().setFinalizers(java.util.List.of("example.com/hold"));
    k.pods().resource(p).update();
    k.pods().inNamespace("default").withName("terminating").delete();
    assertThat(k.pods().inNamespace("default").withName("terminating").get()).isNotNull();
    HttpResponse<String> r =
        post(
            "/api/v1/namespaces/default/pods/terminating/binding",
            binding("terminating", "node-0"));
    assertThat(r.statusCode()).isEqualTo(409);
    assertThat(r.body()).contains("is being deleted, cannot be assigned to a host");
  }

  @Test
  void newPodsGetTheDefaultTolerationsUnlessTheyTolerateAlready() {
    Pod p = pod("t");
    assertThat(p.getSpec().getTolerations())
        .extracting(
            t ->
                t.getKey()
                    + "/"
                    + t.getOperator()
                    + "/"
                    + t.getEffect()
                    + "/"
                    + t.getTolerationSeconds())
        .containsExactlyInAnyOrder(
            "node.kubernetes.io/not-ready/Exists/NoExecute/7",
            "node.kubernetes.io/unreachable/Exists/NoExecute/7");
    Pod all =
        k.pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("all")
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .endContainer()
                    .addNewToleration()
                    .withOperator("Exists")
                    .endToleration()
                    .endSpec()
                    .build())
            .create();
    assertThat(all.getSpec().getTolerations()).hasSize(1);
  }

  @Test
  void anEvictionBeforeTheBudgetHasAStatusIsRefusedAndAPendingPodIsEvictedAtOnce()
      throws Exception {
    pod("running");
    bind("running", "node-0");
    Pod running = k.pods().inNamespace("default").withName("running").get();
    running.getStatus().setPhase("Running");
    k.pods().resource(running).updateStatus();
    k.policy()
        .v1()
        .podDisruptionBudget()
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("b")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withSelector(
                    new LabelSelectorBuilder().withMatchLabels(Map.of("app", "x")).build())
                .endSpec()
                .build())
        .create();
    String eviction =
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"running\"}}";
    HttpResponse<String> r = post("/api/v1/namespaces/default/pods/running/eviction", eviction);
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.body())
        .contains("Cannot evict pod as it would violate the pod's disruption budget.")
        .contains("observedGeneration must be at least");

    pod("waiting");
    HttpResponse<String> pending =
        post(
            "/api/v1/namespaces/default/pods/waiting/eviction",
            eviction.replace("running", "waiting"));
    assertThat(pending.statusCode()).isEqualTo(201);
    assertThat(k.pods().inNamespace("default").withName("waiting").get()).isNull();
  }

  private void running(String name, boolean ready) throws Exception {
    pod(name);
    bind(name, "node-0");
    Pod p = k.pods().inNamespace("default").withName(name).get();
    p.getStatus().setPhase("Running");
    p.getStatus()
        .getConditions()
        .add(
            new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .build());
    k.pods().resource(p).updateStatus();
  }

  private void budgetStatus(int healthy, int desired, int allowed) {
    var b = k.policy().v1().podDisruptionBudget().inNamespace("default").withName("b").get();
    b.setStatus(
        new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
            .withObservedGeneration(
                b.getMetadata().getGeneration() == null ? 0L : b.getMetadata().getGeneration())
            .withCurrentHealthy(healthy)
            .withDesiredHealthy(desired)
            .withDisruptionsAllowed(allowed)
            .withExpectedPods(3)
            .build());
    k.policy().v1().podDisruptionBudget().resource(b).updateStatus();
  }

  @Test
  void anUnreadyPodIsEvictedWhenTheBudgetHasItsHealthyPodsAndOnlyThen() throws Exception {
    running("well", true);
    running("sick", false);
    k.policy()
        .v1()
        .podDisruptionBudget()
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("b")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new IntOrString(2))
                .withSelector(
                    new LabelSelectorBuilder().withMatchLabels(Map.of("app", "x")).build())
                .endSpec()
                .build())
        .create();
    String eviction =
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"NAME\"}}";
    budgetStatus(1, 2, 0);
    assertThat(
            post("/api/v1/namespaces/default/pods/sick/eviction", eviction.replace("NAME", "sick"))
                .statusCode())
        .isEqualTo(429);
    budgetStatus(2, 2, 0);
    assertThat(
            post("/api/v1/namespaces/default/pods/well/eviction", eviction.replace("NAME", "well"))
                .statusCode())
        .isEqualTo(429);
    assertThat(
            post("/api/v1/namespaces/default/pods/sick/eviction", eviction.replace("NAME", "sick"))
                .statusCode())
        .isEqualTo(201);
    assertThat(
            k.pods()
                .inNamespace("default")
                .withName("sick")
                .get()
                .getMetadata()
                .getDeletionTimestamp())
        .isNotNull();
    assertThat(
            k.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("default")
                .withName("b")
                .get()
                .getStatus()
                .getDisruptionsAllowed())
        .isZero();
  }

  @Test
  void podListsAreFilteredByFieldSelector() throws Exception {
    pod("on-0");
    pod("on-1");
    bind("on-0", "node-0");
    bind("on-1", "node-1");
    assertThat(k.pods().inAnyNamespace().withField("spec.nodeName", "node-1").list().getItems())
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("on-1");
    assertThat(
            k.pods()
                .inNamespace("default")
                .withoutField("spec.nodeName", "node-1")
                .list()
                .getItems())
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("on-0");
  }
}
