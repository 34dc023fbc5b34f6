package io.etcdoperator.sandbox.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatefulSetControllerTest {
  static StatefulSet set(Map<String, String> labels) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("etcd")
        .endMetadata()
        .withNewSpec()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("etcd")
        .withImage("x")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  @Test
  void revisionDependsOnTheTemplateOnlyAndNotOnMapOrder() {
    String a =
        StatefulSetController.revision(
            set(new java.util.LinkedHashMap<>(Map.of("a", "1", "b", "2"))));
    java.util.LinkedHashMap<String, String> reversed = new java.util.LinkedHashMap<>();
    reversed.put("b", "2");
    reversed.put("a", "1");
    assertThat(StatefulSetController.revision(set(reversed))).isEqualTo(a);
    assertThat(StatefulSetController.revision(set(Map.of("a", "1"))))
        .isNotEqualTo(a)
        .startsWith("etcd-");
  }

  @Test
  void ordinalsComeFromPodNames() {
    assertThat(StatefulSetController.ordinal("etcd", "etcd-12")).isEqualTo(12);
    assertThat(StatefulSetController.ordinal("etcd", "etcd-x")).isNull();
    assertThat(StatefulSetController.ordinal("etcd", "etcd-headless-0")).isNull();
    assertThat(StatefulSetController.ordinal("etcd", "other-0")).isNull();
  }
}
