package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EmbeddedPersistentVolumeClaim;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.etcdoperator.api.v1alpha1.SecuritySpec;
import io.etcdoperator.api.v1alpha1.StorageSpec;
import io.etcdoperator.api.v1alpha1.TlsSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Every reason an {@code EtcdCluster} cannot be run, each with the path of the field. Admission
 * (the CRD's schema and CEL rules) catches some of these first on a real API server; this class
 * checks them all again, because {@code render} reads files and the test API server runs no CEL.
 */
final class SpecValidator {
  /**
   * The most members a cluster may ask for. etcd sets no limit, but every write waits for a
   * majority: past 7 members writes only get slower, and a mistyped count (1000) would otherwise
   * make a cluster-state ConfigMap past the API server's 1 MiB.
   */
  static final int MAX_REPLICAS = 9;

  private static final Pattern DNS_1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern FLAG_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]*");

  private final List<SpecProblem> problems = new ArrayList<>();
  private String cluster;

  private SpecValidator() {}

  /** Every problem of the resource, in the order of its fields; empty when it can be run. */
  static List<SpecProblem> validate(EtcdCluster resource) {
    SpecValidator v = new SpecValidator();
    v.metadata(resource);
    EtcdClusterSpec spec = resource.getSpec() == null ? new EtcdClusterSpec() : resource.getSpec();
    v.spec(spec);
    return List.copyOf(v.problems);
  }

  private TemplateValidator templates() {
    return new TemplateValidator(cluster == null ? "" : cluster, this::problem);
  }

  private void problem(String field, String message) {
    problems.add(new SpecProblem(field, message));
  }

  private void metadata(EtcdCluster resource) {
    var meta = resource.getMetadata();
    cluster = meta == null ? null : meta.getName();
    if (cluster == null || cluster.isEmpty()) {
      problem("metadata.name", "required");
    } else if (!DNS_1035_LABEL.matcher(cluster).matches()) {
      problem(
          "metadata.name",
          "must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter and"
              + " ending with a letter or digit): it names the cluster's Services");
    } else if (cluster.length() > Names.MAX_CLUSTER_NAME_LENGTH) {
      problem(
          "metadata.name",
          "must be at most "
              + Names.MAX_CLUSTER_NAME_LENGTH
              + " characters, got "
              + cluster.length()
              + ": pods carry the label controller-revision-hash=<name>-<hash>, at most 63");
    }
    if (meta == null || meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      problem("metadata.namespace", "required");
    }
  }

  private void spec(EtcdClusterSpec spec) {
    if (spec.getReplicas() != null && spec.getReplicas() < 0) {
      problem("spec.replicas", "must be 0 or more, got " + spec.getReplicas());
    }
    if (spec.getReplicas() != null && spec.getReplicas() > MAX_REPLICAS) {
      problem(
          "spec.replicas",
          "at most "
              + MAX_REPLICAS
              + ", got "
              + spec.getReplicas()
              + ": every write waits for a majority of members, so more members make writes"
              + " slower and no safer; etcd recommends 3, 5 or 7");
    }
    if (spec.getReplicas() != null && spec.getReplicas() == 0 && !DataStorage.persistent(spec)) {
      problem(
          "spec.replicas",
          "0 with emptyDir storage would delete every member's data; only a cluster on a"
              + " volumeClaimTemplate can hibernate");
    }
    options(spec.getOptions());
    problems.addAll(Maintenance.problems(spec));
    String wait = spec.getReplaceLostMemberAfter();
    if (wait != null && Durations.parse(wait).isEmpty()) {
      problems.add(
          new SpecProblem(
              "spec.replaceLostMemberAfter",
              "not a duration: '"
                  + wait
                  + "' (e.g. 10m, 1h30m, 2d); leave it unset to never"
                  + " replace a lost member automatically"));
    }
    if (spec.getBootstrap() != null && spec.getBootstrap().getRestore() != null) {
      for (String p :
          BackupSpecs.destination(
              spec.getBootstrap().getRestore().getSource(),
              "spec.bootstrap.restore.source",
              true)) {
        int colon = p.indexOf(": ");
        problem(p.substring(0, colon), p.substring(colon + 2));
      }
    }
    if (spec.getPodTemplate() != null) {
      templates().metadata("spec.podTemplate.metadata", spec.getPodTemplate().getMetadata());
      if (spec.getPodTemplate().getSpec() != null) {
        PodTemplateValidator.validate(spec.getPodTemplate().getSpec(), this::problem);
      }
    }
    templates().service("spec.serviceTemplate", spec.getServiceTemplate(), false);
    templates().service("spec.headlessServiceTemplate", spec.getHeadlessServiceTemplate(), true);
    templates().budget(spec.getPodDisruptionBudgetTemplate());
    storage(spec.getStorage());
    security(spec.getSecurity(), spec);
    version(spec);
  }

  /**
   * The etcd minor versions this operator runs: each is run by its tests, against real members. An
   * image of any other minor is refused before anything is touched: the operator sets flags of the
   * versions it knows (3.6 renames the {@code --experimental-*} ones, 3.7 removes them, so a 3.7
   * member would never start), and judges members by their answers as those versions give them.
   */
  public static final List<String> SUPPORTED_MINORS = List.of("3.4", "3.5");

  /** An image whose tag names a version this operator has never run is refused, by its field. */
  private void version(EtcdClusterSpec spec) {
    String image = MemberPod.imageOf(spec);
    EtcdVersion.ofImage(image)
        .filter(v -> !SUPPORTED_MINORS.contains(v.minorVersion()))
        .ifPresent(
            v ->
                problem(
                    "spec.podTemplate.spec.containers[name=etcd].image",
                    image
                        + " is etcd "
                        + v.minorVersion()
                        + ", which this operator has never run; it runs etcd "
                        + String.join(" and ", SUPPORTED_MINORS)
                        + (v.compareTo(new EtcdVersion(3, 5, 0)) > 0
                            ? ": stay on a 3.5 image (etcd 3.6 renames the --experimental-*"
                                + " flags the operator sets and 3.7 removes them; moving to 3.6"
                                + " needs 3.5.26 or later first)"
                            : ": use a 3.4 or 3.5 image")));
  }

  /**
   * The rules of aenix v1alpha1's webhook, which the CRD's CEL rules repeat (an API server without
   * them, or an object written before they existed, still meets them here), and Secret names.
   */
  private void security(SecuritySpec security, EtcdClusterSpec spec) {
    if (security == null) {
      return;
    }
    if (security.getPeer() != null) {
      problem(
          "spec.security.peer",
          "is an older shape of aenix's API, not supported: name the peer Secrets in"
              + " spec.security.tls.peerSecret and spec.security.tls.peerTrustedCASecret");
    }
    if (security.getClientServer() != null) {
      problem(
          "spec.security.clientServer",
          "is an older shape of aenix's API, not supported: name the Secrets in"
              + " spec.security.tls.serverSecret (and serverTrustedCASecret), and"
              + " spec.security.tls.clientSecret with clientTrustedCASecret");
    }
    TlsSpec tls = security.getTls() == null ? new TlsSpec() : security.getTls();
    Map<String, String> names = new LinkedHashMap<>();
    names.put("peerTrustedCASecret", tls.getPeerTrustedCASecret());
    names.put("peerSecret", tls.getPeerSecret());
    names.put("serverTrustedCASecret", tls.getServerTrustedCASecret());
    names.put("serverSecret", tls.getServerSecret());
    names.put("clientTrustedCASecret", tls.getClientTrustedCASecret());
    names.put("clientSecret", tls.getClientSecret());
    names.forEach(
        (field, value) -> {
          if (value != null && !value.isBlank() && !DNS_SUBDOMAIN.matcher(value).matches()) {
            problem(
                "spec.security.tls." + field,
                "'"
                    + value
                    + "' is no Secret name (a DNS subdomain: lowercase letters, digits,"
                    + " '-' and '.')");
          }
        });
    Security s = Security.of(security);
    if (s.peerSecret().isPresent() != s.peerCaSecret().isPresent()) {
      problem(
          "spec.security.tls",
          "set both peerSecret and peerTrustedCASecret, or neither (members verify each other's"
              + " certificate)");
    }
    if (s.clientSecret().isPresent() != s.clientCaSecret().isPresent()) {
      problem(
          "spec.security.tls",
          "set both clientSecret and clientTrustedCASecret, or neither (members verify the"
              + " operator's client certificate)");
    }
    if (s.clientCaSecret().isPresent() && !s.serverTls()) {
      problem(
          "spec.security.tls.clientTrustedCASecret",
          "client certificates need TLS on the client port: set serverSecret too");
    }
    if (s.serverCaSecret().isPresent() && !s.serverTls()) {
      problem(
          "spec.security.tls.serverTrustedCASecret",
          "trusts a server certificate, but no serverSecret gives the members one: set"
              + " serverSecret too, or remove it");
    }
    if (s.auth() && (!s.serverTls() || s.clientSecret().isEmpty())) {
      problem(
          "spec.security.enableAuth",
          "the operator authenticates with its client certificate: set"
              + " spec.security.tls.serverSecret and spec.security.tls.clientSecret");
    }
    if (s.auth()) {
      String image = MemberPod.imageOf(spec);
      EtcdVersion.ofImage(image)
          .filter(v -> v.compareTo(new EtcdVersion(3, 5, 0)) < 0)
          .ifPresent(
              v ->
                  problem(
                      "spec.security.enableAuth",
                      "needs etcd 3.5 or later, and the image "
                          + image
                          + " is "
                          + v.minorVersion()
                          + " (3.4 cannot say whether authentication is on, and its users need"
                          + " passwords); upgrade first"));
    }
  }

  private void options(Map<String, String> options) {
    if (options == null) {
      return;
    }
    new TreeMap<>(options)
        .forEach(
            (key, value) -> {
              String field = "spec.options." + key;
              if (key.startsWith("-")) {
                problem(
                    field,
                    "write the flag name without leading dashes: '"
                        + key.replaceFirst("^-+", "")
                        + "'");
              } else if (!FLAG_NAME.matcher(key).matches()) {
                problem(field, "not an etcd flag name (lowercase letters, digits, '-' and '.')");
              } else if (EtcdFlags.ownedBecause(key).isPresent()) {
                problem(field, ownedFlag(key));
              } else if (EtcdFlags.unsafeBecause(key, value).isPresent()) {
                problem(
                    field,
                    "--"
                        + key
                        + "="
                        + value
                        + " "
                        + EtcdFlags.unsafeBecause(key, value).orElseThrow()
                        + "; the operator does not run members with it: remove it");
              } else if (value == null) {
                problem(field, "a value is required (write \"true\" for a boolean flag)");
              }
            });
  }

  private static String ownedFlag(String flag) {
    return "--"
        + flag
        + " is set by the operator ("
        + EtcdFlags.ownedBecause(flag).orElseThrow()
        + "); remove it";
  }

  private void storage(StorageSpec storage) {
    if (storage == null) {
      return;
    }
    EmbeddedPersistentVolumeClaim claim = storage.getVolumeClaimTemplate();
    // Both kinds: emptyDir is used (aenix's rule), the claim template is not checked (SpecNotices).
    if (claim != null && storage.getEmptyDir() == null) {
      templates().metadata("spec.storage.volumeClaimTemplate.metadata", claim.getMetadata());
      String field = "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";
      Quantity size =
          claim.getSpec() == null || claim.getSpec().getResources() == null
              ? null
              : claim.getSpec().getResources().getRequests().get("storage");
      if (size == null) {
        problem(field, "required: the size of each member's volume, e.g. 4Gi");
      } else {
        size(field, size);
      }
    }
  }

  private void size(String field, Quantity size) {
    BigDecimal bytes;
    try {
      bytes = size.getNumericalAmount();
    } catch (IllegalArgumentException | ArithmeticException e) {
      problem(field, "not a quantity: '" + size + "'");
      return;
    }
    if (bytes.signum() <= 0) {
      problem(field, "must be more than 0, got " + size);
    }
  }
}
