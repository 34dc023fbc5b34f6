package io.etcdoperator.sandbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading jcmd's class histogram and what grew between two. */
class HeapHistogramTest {
  static final String BEFORE =
      """
      12345:
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:          1000          64000  [B (java.base@17.0.17)
         2:           500          12000  java.lang.String (java.base@17.0.17)
         3:            10            480  io.fabric8.kubernetes.api.model.Pod
      Total          1510          76480
      """;

  static final String AFTER =
      """
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:          3000         264000  [B (java.base@17.0.17)
         2:          1500          36000  java.lang.String (java.base@17.0.17)
         3:           210          10080  io.fabric8.kubernetes.api.model.Pod
         4:           100           2400  io.etcdoperator.operator.observe.PodView
      Total          4810         312480
      """;

  @Test
  void parsesRowsAndSkipsTheRest() {
    HeapHistogram h = HeapHistogram.parse(BEFORE);
    assertThat(h.byClass()).hasSize(3);
    assertThat(h.byClass().get("java.lang.String")).containsExactly(500, 12000);
    assertThat(h.totalBytes()).isEqualTo(76480);
  }

  @Test
  void growthPerClusterLargestFirstWithClassesThatAppeared() {
    List<HeapHistogram.Growth> g =
        HeapHistogram.parse(AFTER).growthSince(HeapHistogram.parse(BEFORE), 100, 3);
    assertThat(g)
        .extracting(HeapHistogram.Growth::className)
        .containsExactly("[B", "java.lang.String", "io.fabric8.kubernetes.api.model.Pod");
    assertThat(g.get(0).bytesPerCluster()).isEqualTo(2000.0);
    assertThat(g.get(2).instancesPerCluster()).isEqualTo(2.0);
    assertThat(g.get(0).line()).contains("1.95 KiB").contains("20.0 objects").endsWith("[B");
  }
}
