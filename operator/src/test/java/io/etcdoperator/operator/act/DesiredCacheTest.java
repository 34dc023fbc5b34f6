package io.etcdoperator.operator.act;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.TestClusters;
import io.etcdoperator.operator.model.TlsMove;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link DesiredCache}: a cluster's desired state is composed again exactly when what it is
 * composed from changes, and not on a status write.
 */
class DesiredCacheTest {
  private static final String IMAGE = Names.DEFAULT_OPERATOR_IMAGE;

  private static EtcdCluster cluster(long generation) {
    EtcdCluster c = TestClusters.withSpec("replicas: 3");
    c.getMetadata().setGeneration(generation);
    c.getMetadata().setResourceVersion("1");
    return c;
  }

  @Test
  void composesAgainOnlyWhenWhatItIsComposedFromChanges() {
    DesiredCache cache = new DesiredCache();
    EtcdCluster c = cluster(1);
    DesiredCache.Entry first = cache.of(c, IMAGE, "", TlsMove.NONE);

    // A status write: another resourceVersion and status, the same generation.
    EtcdCluster written = cluster(1);
    written.getMetadata().setResourceVersion("2");
    written.setStatus(new EtcdClusterStatus());
    assertThat(cache.of(written, IMAGE, "", TlsMove.NONE)).isSameAs(first);

    // A new generation (the spec changed).
    EtcdCluster scaled = TestClusters.withSpec("replicas: 5");
    scaled.getMetadata().setGeneration(2L);
    DesiredCache.Entry second = cache.of(scaled, IMAGE, "", TlsMove.NONE);
    assertThat(second).isNotSameAs(first);
    assertThat(second.desired().model().orElseThrow().replicas()).isEqualTo(5);

    // An annotation the model reads (the pause).
    EtcdCluster paused = TestClusters.withSpec("replicas: 5");
    paused.getMetadata().setGeneration(2L);
    paused.getMetadata().setAnnotations(Map.of(Names.PAUSED_ANNOTATION, "true"));
    DesiredCache.Entry third = cache.of(paused, IMAGE, "", TlsMove.NONE);
    assertThat(third).isNotSameAs(second);
    assertThat(third.desired().target().paused()).isTrue();

    // Another trusted CA: the pod template changes.
    DesiredCache.Entry rotated = cache.of(paused, IMAGE, "sha256:new-ca", TlsMove.NONE);
    assertThat(rotated.desired().model().orElseThrow().podTemplateHash())
        .isNotEqualTo(third.desired().model().orElseThrow().podTemplateHash());
  }

  /** A reconcile during a move to TLS composes for the spec and for the move's step: both kept. */
  @Test
  void keepsTheSpecsAndTheMovesCompositionSideBySide() {
    DesiredCache cache = new DesiredCache();
    EtcdCluster c = cluster(1);
    DesiredCache.Entry spec = cache.of(c, IMAGE, "", TlsMove.NONE);
    DesiredCache.Entry move = cache.of(c, IMAGE, "", TlsMove.HTTP_AND_HTTPS);
    assertThat(move).isNotSameAs(spec);
    assertThat(cache.of(c, IMAGE, "", TlsMove.NONE)).isSameAs(spec);
    assertThat(cache.of(c, IMAGE, "", TlsMove.HTTP_AND_HTTPS)).isSameAs(move);
  }

  @Test
  void aNewClusterOfItsNameStartsAfresh() {
    DesiredCache cache = new DesiredCache();
    EtcdCluster c = cluster(1);
    DesiredCache.Entry first = cache.of(c, IMAGE, "", TlsMove.NONE);
    assertThat(cache.size()).isOne();

    // Recreated under the same name: another UID, another composition.
    EtcdCluster again = cluster(1);
    again.getMetadata().setUid("another-uid");
    DesiredCache.Entry second = cache.of(again, IMAGE, "", TlsMove.NONE);
    assertThat(second).isNotSameAs(first);
    assertThat(second.desired().model().orElseThrow().clusterToken()).contains("another-uid");
    assertThat(cache.size()).as("the deleted cluster's entry is dropped").isOne();
  }

  @Test
  void hashesEachDesiredObjectOnce() {
    DesiredCache.Entry entry = new DesiredCache().of(cluster(1), IMAGE, "", TlsMove.NONE);
    AtomicInteger computed = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      assertThat(entry.hash("statefulset 3", () -> "h" + computed.incrementAndGet()))
          .isEqualTo("h1");
    }
    assertThat(entry.hash("statefulset 4", () -> "h" + computed.incrementAndGet())).isEqualTo("h2");
    assertThat(computed).hasValue(2);
  }
}
