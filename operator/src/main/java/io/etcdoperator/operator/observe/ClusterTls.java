package io.etcdoperator.operator.observe;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.tls.CertificateCheck;
import io.etcdoperator.operator.tls.TlsReport;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
    return check(cluster, secret, podOrdinals, now, Optional.empty());
  }

  /**
   * As the four-argument {@code check}, and, when the spec names no server Secret while members
   * still serve clients over https ({@code recorded}: the Secrets they were started with, {@link
   * ServerTlsRecord}, given only then), the operator's material for calling members from those
   * Secrets: a roll off server TLS reaches the members it has not restarted yet with it. Their
   * problems are the report's too (nothing is started or changed without them); their warnings and
   * certificates are not (status describes what the spec asks for), nor is the fingerprint of the
   * CAs members load at start, which stays the spec's so that the members' template does not change
   * again when the last of them stops serving https.
   */
  public static TlsReport check(
      EtcdCluster cluster,
      Function<String, Optional<Secret>> secret,
      SortedSet<Integer> podOrdinals,
      Instant now,
      Optional<ServerTlsRecord> recorded) {
    Security security =
        cluster.getSpec() == null ? Security.NONE : Security.of(cluster.getSpec().getSecurity());
    SortedSet<Integer> ordinals = new TreeSet<>(podOrdinals);
    int replicas =
        cluster.getSpec() == null || cluster.getSpec().getReplicas() == null
            ? EtcdClusterSpec.DEFAULT_REPLICAS
            : cluster.getSpec().getReplicas();
    for (int i = 0; i < replicas; i++) {
      ordinals.add(i);
    }
    String ns = cluster.getMetadata().getNamespace();
    String name = cluster.getMetadata().getName();
    TlsReport asked =
        CertificateCheck.check(security, ns, name, ordinals, read(security, secret), now);
    if (security.serverTls() || recorded.isEmpty()) {
      return asked;
    }
    Security kept = recorded.get().security();
    TlsReport running = CertificateCheck.check(kept, ns, name, ordinals, read(kept, secret), now);
    List<TlsReport.Problem> invalid = new ArrayList<>(asked.invalid());
    running.invalid().stream()
        .map(
            p ->
                new TlsReport.Problem(
                    p.secret(),
                    p.key(),
                    p.message()
                        + " (members still serve clients over https with it while server TLS is"
                        + " turned off, and the operator reaches them with it: create it again as"
                        + " it was, or set spec.security.tls back until the cluster is Ready)"))
        .forEach(invalid::add);
    return new TlsReport(
        invalid,
        asked.warnings(),
        asked.certificates(),
        invalid.isEmpty() ? running.client() : Optional.empty(),
        asked.trustedCa(),
        running.clientUser());
  }

  private static Map<String, Map<String, byte[]>> read(
      Security security, Function<String, Optional<Secret>> secret) {
    Map<String, Map<String, byte[]>> data = new HashMap<>();
    for (String name : security.secretNames()) {
      secret.apply(name).ifPresent(value -> data.put(name, decoded(value)));
    }
    return data;
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
