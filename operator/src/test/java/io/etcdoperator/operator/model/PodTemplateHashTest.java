package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pod template hash tells the planner which members run an outdated pod. */
class PodTemplateHashTest {
  static final String BASE =
      """
      replicas: 3
      options: {snapshot-count: '10000'}
      podTemplate:
        metadata:
          labels: {team: storage, tier: db}
        spec:
          containers:
          - name: etcd
            image: quay.io/coreos/etcd:v3.5.17
      """;

  static String hash(String spec) {
    return TestClusters.model(spec).podTemplateHash();
  }

  @Test
  void isStableForEqualSpecs() {
    assertThat(hash(BASE)).isEqualTo(hash(BASE)).matches("[0-9a-f]{16}");
  }

  @Test
  void doesNotDependOnTheOrderOfMapKeys() {
    String reordered = BASE.replace("{team: storage, tier: db}", "{tier: db, team: storage}");
    assertThat(hash(reordered)).isEqualTo(hash(BASE));
  }

  @Test
  void isTheAnnotationOnThePodTemplate() {
    EtcdClusterModel model = TestClusters.model(BASE);
    assertThat(model.statefulSet(3).getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry(Names.POD_TEMPLATE_HASH_ANNOTATION, model.podTemplateHash());
  }

  @Test
  void doesNotChangeWithReplicas() {
    EtcdClusterModel model = TestClusters.model(BASE);
    assertThat(hash(BASE.replace("replicas: 3", "replicas: 5"))).isEqualTo(hash(BASE));
    assertThat(model.statefulSet(1).getSpec().getTemplate())
        .isEqualTo(model.statefulSet(5).getSpec().getTemplate());
  }

  @Test
  void doesNotChangeWithServiceOrBudgetTemplates() {
    String more =
        BASE
            + """
            serviceTemplate:
              spec: {type: LoadBalancer}
            podDisruptionBudgetTemplate:
              spec: {maxUnavailable: 1}
            """;
    assertThat(hash(more)).isEqualTo(hash(BASE));
  }

  @Test
  void changesWithTheImage() {
    assertThat(hash(BASE.replace("v3.5.17", "v3.5.18"))).isNotEqualTo(hash(BASE));
  }

  @Test
  void changesWithOptions() {
    assertThat(hash(BASE.replace("'10000'", "'20000'"))).isNotEqualTo(hash(BASE));
  }

  @Test
  void changesWithResources() {
    String resources = BASE + "      resources: {requests: {cpu: 100m}}\n";
    assertThat(hash(resources)).isNotEqualTo(hash(BASE));
  }

  @Test
  void changesWithPodLabels() {
    assertThat(hash(BASE.replace("tier: db", "tier: cache"))).isNotEqualTo(hash(BASE));
  }

  @Test
  void changesWithStorageKind() {
    assertThat(hash(BASE + "storage: {emptyDir: {}}\n")).isNotEqualTo(hash(BASE));
  }

  @Test
  void dependsOnTheClusterName() {
    String other;
    try {
      other =
          EtcdClusterModel.of(TestClusters.parse(TestClusters.manifest("other", BASE)))
              .podTemplateHash();
    } catch (InvalidSpecException e) {
      throw new AssertionError(e);
    }
    assertThat(other).isNotEqualTo(hash(BASE));
  }
}
