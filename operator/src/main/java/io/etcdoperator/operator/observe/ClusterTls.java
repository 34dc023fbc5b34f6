package io.etcdoperator.operator.observe;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.tls.CertificateCheck;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a cluster's spec.security.tls Secrets hold, checked for every ordinal it has or is to have:
 * the one reading the cluster's controller (from its Secret cache) and the backup controller (by
 * name) share.
 */
public final class ClusterTls {
  private ClusterTls() {}

  /**
   * @param secret a Secret of the cluster's namespace by name
   * @param podOrdinals ordinals that have a pod, besides those the spec asks for
   */
  public static TlsReport check(
      EtcdCluster cluster,
      Function<String, Optional<Secret>> secret,
      SortedSet<Integer> podOrdinals,
      Instant now) {
    Security security =
        cluster.getSpec() == null ? Security.NONE : Security.of(cluster.getSpec().getSecurity());
    if (!security.any()) {
      return TlsReport.NONE;
    }
    Map<String, Map<String, byte[]>> data = new HashMap<>();
    for (String name : security.secretNames()) {
      secret.apply(name).ifPresent(value -> data.put(name, decoded(value)));
    }
    SortedSet<Integer> ordinals = new TreeSet<>(podOrdinals);
    int replicas =
        cluster.getSpec().getReplicas() == null
            ? EtcdClusterSpec.DEFAULT_REPLICAS
            : cluster.getSpec().getReplicas();
    for (int i = 0; i < replicas; i++) {
      ordinals.add(i);
    }
    return CertificateCheck.check(
        security,
        cluster.getMetadata().getNamespace(),
        cluster.getMetadata().getName(),
        ordinals,
        data,
        now);
  }

  /** A Secret's data and stringData, decoded. */
  public static Map<String, byte[]> decoded(Secret secret) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    if (secret.getData() != null) {
      secret.getData().forEach((k, v) -> out.put(k, Base64.getMimeDecoder().decode(v)));
    }
    if (secret.getStringData() != null) {
      secret.getStringData().forEach((k, v) -> out.put(k, v.getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }
}
