package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.StorageSpec;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import org.junit.jupiter.api.Test;

class SpecNoticesTest {
  @Test
  void bothStorageKindsSayTheClaimTemplateIsIgnored() {
    EtcdClusterSpec spec = new EtcdClusterSpec();
    assertThat(SpecNotices.of(spec)).isEmpty();
    StorageSpec storage = new StorageSpec();
    storage.setEmptyDir(new EmptyDirVolumeSource());
    spec.setStorage(storage);
    assertThat(SpecNotices.of(spec)).isEmpty();
    storage.setVolumeClaimTemplate(
        new io.etcdoperator.api.v1alpha1.EmbeddedPersistentVolumeClaim());
    assertThat(SpecNotices.of(spec))
        .singleElement()
        .asString()
        .startsWith("spec.storage.volumeClaimTemplate is ignored: spec.storage.emptyDir is set");
  }
}
