package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** EtcdCluster resources for tests, from YAML as a user writes it. */
public final class TestClusters {
  public static final String NAME = "demo";
  public static final String NAMESPACE = "prod";
  public static final String UID = "3f1c1d1e-0000-4000-8000-000000000001";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private TestClusters() {}

  /** A whole manifest; a missing namespace becomes {@code default}, as kubectl would do. */
  public static EtcdCluster parse(String yaml) {
    EtcdCluster cluster = SERIALIZATION.unmarshal(yaml, EtcdCluster.class);
    if (cluster.getMetadata().getNamespace() == null) {
      cluster.getMetadata().setNamespace("default");
    }
    return cluster;
  }

  public static EtcdCluster read(Path manifest) {
    try {
      return parse(Files.readString(manifest));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Cluster {@value #NAME} in {@value #NAMESPACE} with this spec (YAML under {@code spec:}). */
  public static EtcdCluster withSpec(String specYaml) {
    return parse(manifest(NAME, specYaml));
  }

  public static String manifest(String name, String specYaml) {
    return """
        apiVersion: etcd.aenix.io/v1alpha1
        kind: EtcdCluster
        metadata:
          name: %s
          namespace: %s
          uid: %s
        spec:
        %s
        """
        .formatted(name, NAMESPACE, UID, specYaml.stripTrailing().indent(2));
  }

  /** The model of a valid spec; fails the test when it is not. */
  public static EtcdClusterModel model(String specYaml) {
    try {
      return EtcdClusterModel.of(withSpec(specYaml));
    } catch (InvalidSpecException e) {
      throw new AssertionError("expected a valid spec: " + e.getMessage(), e);
    }
  }
}
