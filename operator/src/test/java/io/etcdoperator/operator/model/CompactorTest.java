package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Compacted objects say what they said (equal, the same JSON) and share their common parts: two
 * pods read from JSON as the informers read them, of two clusters.
 */
class CompactorTest {
  private static Pod read(String cluster) {
    return Serialization.unmarshal(
        """
        {"apiVersion":"v1","kind":"Pod",
         "metadata":{"name":"%1$s-0","namespace":"default","uid":"uid-%1$s",
           "resourceVersion":"17","labels":{"app.kubernetes.io/instance":"%1$s",
           "app.kubernetes.io/managed-by":"etcd-operator"},"annotations":{}},
         "spec":{"nodeName":"node-0","containers":[{"name":"etcd",
           "image":"quay.io/coreos/etcd:v3.5.30",
           "args":["--name=%1$s-0","--data-dir=/var/run/etcd/default.etcd"],
           "resources":{"requests":{"cpu":"100m","memory":"128Mi"}},
           "readinessProbe":{"httpGet":{"path":"/readyz","port":2379},"periodSeconds":1}}]},
         "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}
        """
            .formatted(cluster),
        Pod.class);
  }

  @Test
  void aCompactedPodIsEqualToWhatWasReadAndSerializesTheSame() throws Exception {
    Pod pod = Compactor.compact(read("a"));
    assertThat(pod).isEqualTo(read("a"));
    assertThat(tree(pod)).isEqualTo(tree(read("a")));
    assertThat(pod.getMetadata().getAnnotations()).isEmpty();
  }

  @Test
  void twoClustersPodsShareTheirCommonStringsAndEmptyMaps() {
    Pod a = Compactor.compact(read("a"));
    Pod b = Compactor.compact(read("b"));
    var ca = a.getSpec().getContainers().get(0);
    var cb = b.getSpec().getContainers().get(0);
    assertThat(ca.getImage()).isSameAs(cb.getImage());
    assertThat(ca.getArgs().get(1)).isSameAs(cb.getArgs().get(1));
    assertThat(ca.getArgs().get(0)).isNotEqualTo(cb.getArgs().get(0));
    assertThat(a.getSpec().getNodeName()).isSameAs(b.getSpec().getNodeName());
    assertThat(a.getStatus().getConditions().get(0).getType())
        .isSameAs(b.getStatus().getConditions().get(0).getType());
    assertThat(key(a.getMetadata().getLabels(), "app.kubernetes.io/managed-by"))
        .isSameAs(key(b.getMetadata().getLabels(), "app.kubernetes.io/managed-by"));
    assertThat(a.getMetadata().getLabels()).isEqualTo(read("a").getMetadata().getLabels());
    assertThat(ca.getResources().getRequests().get("cpu").getAmount())
        .isSameAs(cb.getResources().getRequests().get("cpu").getAmount());
    assertThat(ca.getAdditionalProperties())
        .isSameAs(cb.getReadinessProbe().getAdditionalProperties());
    assertThat(a.getAdditionalProperties()).isSameAs(b.getMetadata().getAdditionalProperties());
    // fabric8 gives each list field an empty list of its own; compacted, they are one
    assertThat(ca.getEnv()).isEmpty();
    assertThat(ca.getEnv()).isSameAs(b.getMetadata().getFinalizers());
    assertThat(ca.getArgs()).isEqualTo(read("a").getSpec().getContainers().get(0).getArgs());
  }

  @Test
  void theFieldsThatDifferInEveryObjectAreNotInterned() {
    Pod a = Compactor.compact(read("a"));
    String uid = new String("uid-a".toCharArray());
    assertThat(uid.intern()).isNotSameAs(a.getMetadata().getUid());
    assertThat(a.getMetadata().getUid()).isEqualTo("uid-a");
  }

  @Test
  void anObjectBuiltInCodeIsCompactedAndAListHoldingANullKeepsIt() {
    Pod built =
        new PodBuilder()
            .withNewMetadata()
            .withName(new String("x".toCharArray()))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("etcd")
            .endContainer()
            .endSpec()
            .build();
    built.getSpec().getContainers().get(0).setArgs(List.of(new String("--a".toCharArray())));
    built
        .getSpec()
        .getContainers()
        .get(0)
        .setCommand(Arrays.asList(new String("etcd".toCharArray()), null));
    Pod compacted = Compactor.compact(built);
    var container = compacted.getSpec().getContainers().get(0);
    assertThat(container.getArgs()).containsExactly("--a");
    assertThat(container.getArgs().get(0)).isSameAs("--a".intern());
    assertThat(container.getCommand()).containsExactly("etcd", null);
    assertThat(container.getCommand().get(0)).isSameAs("etcd".intern());
    assertThat(compacted.getMetadata().getName()).isSameAs("x".intern());
  }

  /** The map's own instance of the key. */
  private static String key(Map<String, String> map, String key) {
    return map.keySet().stream().filter(key::equals).findFirst().orElseThrow();
  }

  /** The object's JSON as a tree: the same fields and values in any order. */
  private static JsonNode tree(Object o) throws Exception {
    return Serialization.jsonMapper().readTree(Serialization.asJson(o));
  }
}
