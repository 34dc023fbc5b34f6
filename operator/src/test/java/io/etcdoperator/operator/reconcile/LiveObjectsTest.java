package io.etcdoperator.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LiveObjectsTest {
  private static final String OURS = "uid-new";

  /** owners: kind/apiVersion/uid, separated by spaces; "-" for none. */
  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "no owner (orphaned by its deleted cluster: still ours to take), -, false",
    "this cluster, EtcdCluster/etcd.aenix.io/v1alpha1/uid-new, false",
    "an earlier cluster of the same name, EtcdCluster/etcd.aenix.io/v1alpha1/uid-old, true",
    "another version of the API, EtcdCluster/etcd.aenix.io/v1beta1/uid-old, true",
    "a kind of the same name in another group, EtcdCluster/example.com/v1/uid-old, false",
    "another kind, StatefulSet/apps/v1/uid-old, false",
    "this cluster and an earlier one, EtcdCluster/etcd.aenix.io/v1alpha1/uid-old"
        + " EtcdCluster/etcd.aenix.io/v1alpha1/uid-new, false",
    "an earlier cluster and another kind, StatefulSet/apps/v1/uid-new"
        + " EtcdCluster/etcd.aenix.io/v1alpha1/uid-old, true",
  })
  void anObjectOfAnEarlierClusterOfTheSameNameIsNotThisOnes(
      String why, String owners, boolean another) {
    var object =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("test-cluster-state")
            .withOwnerReferences(owners(owners))
            .endMetadata()
            .build();
    assertThat(LiveObjects.ofAnotherCluster(object, OURS)).as(why).isEqualTo(another);
  }

  private static List<OwnerReference> owners(String text) {
    if (text.equals("-")) {
      return List.of();
    }
    return java.util.Arrays.stream(text.split(" "))
        .map(
            o -> {
              String[] p = o.split("/");
              String apiVersion = p.length == 4 ? p[1] + "/" + p[2] : p[1];
              return new OwnerReferenceBuilder()
                  .withKind(p[0])
                  .withApiVersion(apiVersion)
                  .withName("test")
                  .withUid(p[p.length - 1])
                  .build();
            })
        .toList();
  }
}
