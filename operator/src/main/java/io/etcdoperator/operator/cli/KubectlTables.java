package io.etcdoperator.operator.cli;

import io.etcdoperator.api.v1alpha1.BackupDestination;
import io.etcdoperator.api.v1alpha1.CertificateStatus;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.etcdoperator.api.v1alpha1.PVCBackupDestination;
import io.etcdoperator.api.v1alpha1.S3BackupDestination;
import io.etcdoperator.operator.model.BackupPods;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code kubectl etcd} prints, from the objects it read: pure, so that every column is tested
 * with tables of objects ({@code KubectlTablesTest}). Columns are laid out as kubectl lays out its
 * own: upper-case headers, each column as wide as its widest cell, three spaces between.
 */
final class KubectlTables {
  private KubectlTables() {}

  /** The columns of {@code kubectl etcd list}, with NAMESPACE first when {@code allNamespaces}. */
  static List<List<String>> list(
      List<EtcdCluster> clusters,
      List<EtcdBackup> backups,
      Map<String, Long> dbSizes,
      Instant now,
      boolean allNamespaces) {
    List<List<String>> rows = new ArrayList<>();
    List<String> header =
        new ArrayList<>(
            List.of(
                "NAME",
                "REPLICAS",
                "VOTERS",
                "LEADER",
                "VERSION",
                "DB SIZE",
                "READY",
                "LAST BACKUP"));
    header.add("AGE");
    if (allNamespaces) {
      header.add(0, "NAMESPACE");
    }
    rows.add(header);
    clusters.stream()
        .sorted(
            Comparator.comparing((EtcdCluster c) -> c.getMetadata().getNamespace())
                .thenComparing(c -> c.getMetadata().getName()))
        .forEach(
            c -> {
              EtcdClusterStatus st =
                  c.getStatus() == null ? new EtcdClusterStatus() : c.getStatus();
              List<String> row = new ArrayList<>();
              if (allNamespaces) {
                row.add(c.getMetadata().getNamespace());
              }
              row.add(c.getMetadata().getName());
              row.add(String.valueOf(c.getSpec() == null ? "-" : c.getSpec().getReplicas()));
              row.add(voters(st));
              row.add(dash(st.getLeader()));
              row.add(dash(st.getClusterVersion()));
              row.add(bytes(dbSizes.getOrDefault(key(c), -1L)));
              row.add(ready(st));
              row.add(lastBackup(c, backups, now).map(d -> age(d) + " ago").orElse("-"));
              row.add(
                  dash(
                      Optional.ofNullable(c.getMetadata().getCreationTimestamp())
                          .map(t -> age(Duration.between(Instant.parse(t), now)))
                          .orElse(null)));
              rows.add(row);
            });
    return rows;
  }

  /** Healthy voters of all members, as {@code 3/3}. */
  static String voters(EtcdClusterStatus st) {
    List<MemberStatus> members = st.getMembers() == null ? List.of() : st.getMembers();
    long healthy =
        members.stream()
            .filter(
                m -> MemberStatus.VOTER.equals(m.getRole()) && Boolean.TRUE.equals(m.getHealthy()))
            .count();
    return healthy + "/" + members.size();
  }

  /** {@code True}, or the reason it is not. */
  static String ready(EtcdClusterStatus st) {
    return condition(st.getConditions(), "Ready")
        .map(c -> "True".equals(c.getStatus()) ? "True" : dash(c.getReason()))
        .orElse("-");
  }

  /** How long ago the newest Complete backup of {@code cluster} completed. */
  static Optional<Duration> lastBackup(EtcdCluster cluster, List<EtcdBackup> backups, Instant now) {
    return backups.stream()
        .filter(b -> cluster.getMetadata().getNamespace().equals(b.getMetadata().getNamespace()))
        .filter(
            b ->
                b.getSpec() != null
                    && b.getSpec().getClusterRef() != null
                    && cluster
                        .getMetadata()
                        .getName()
                        .equals(b.getSpec().getClusterRef().getName()))
        .filter(b -> b.getStatus() != null && "Complete".equals(b.getStatus().getPhase()))
        .map(b -> b.getStatus().getCompletionTime())
        .filter(t -> t != null)
        .map(Instant::parse)
        .max(Comparator.naturalOrder())
        .map(t -> Duration.between(t, now));
  }

  /** {@code kubectl etcd status}: the cluster, its members, certificates and conditions. */
  static String status(EtcdCluster c, Map<String, KubectlMembers.Figures> figures, Instant now) {
    EtcdClusterStatus st = c.getStatus() == null ? new EtcdClusterStatus() : c.getStatus();
    StringBuilder out = new StringBuilder();
    out.append("Name:         ").append(c.getMetadata().getName()).append('\n');
    out.append("Namespace:    ").append(c.getMetadata().getNamespace()).append('\n');
    out.append("Cluster ID:   ").append(dash(st.getClusterID())).append('\n');
    out.append("Version:      ").append(dash(st.getClusterVersion())).append('\n');
    out.append("Leader:       ").append(dash(st.getLeader())).append('\n');
    out.append("Voters:       ").append(voters(st)).append(" healthy\n");
    for (String type : List.of("Ready", "Available")) {
      condition(st.getConditions(), type)
          .ifPresent(
              x ->
                  out.append(String.format("%-14s", type + ":"))
                      .append(x.getStatus())
                      .append(" (")
                      .append(dash(x.getReason()))
                      .append(")")
                      .append(x.getMessage() == null ? "" : ": " + x.getMessage())
                      .append('\n'));
    }
    out.append("Members:\n");
    List<List<String>> members = new ArrayList<>();
    members.add(
        List.of(
            "NAME",
            "ID",
            "ROLE",
            "HEALTHY",
            "LEADER",
            "VERSION",
            "NODE",
            "DB SIZE",
            "IN USE",
            "RAFT LAG",
            "ALARMS",
            "LAST DEFRAG"));
    // Behind the leader as each was asked, one after the other: a follower asked later may be
    // ahead of the leader's figure, which counts as no lag.
    long newest =
        KubectlEtcd.leader(c)
            .map(l -> figures.getOrDefault(l.getName(), KubectlMembers.Figures.failed(null)))
            .map(KubectlMembers.Figures::raftIndex)
            .orElse(-1L);
    List<String> unanswered = new ArrayList<>();
    for (MemberStatus m : st.getMembers() == null ? List.<MemberStatus>of() : st.getMembers()) {
      KubectlMembers.Figures f =
          figures.getOrDefault(m.getName(), KubectlMembers.Figures.failed(null));
      if (f.error() != null) {
        unanswered.add(f.error());
      }
      members.add(
          List.of(
              dash(m.getName()),
              dash(m.getId()),
              dash(m.getRole()),
              m.getHealthy() == null
                  ? "-"
                  : m.getHealthy() ? "true" : "false" + since(m.getUnhealthySince(), now),
              Boolean.TRUE.equals(m.getLeader()) ? "*" : "",
              dash(m.getVersion()),
              dash(m.getNode()),
              bytes(f.dbSize()),
              bytes(f.dbSizeInUse()),
              f.raftIndex() < 0 || newest < 0
                  ? "?"
                  : String.valueOf(Math.max(0, newest - f.raftIndex())),
              f.raftIndex() < 0 ? "?" : f.alarms().isEmpty() ? "-" : String.join(",", f.alarms()),
              m.getLastDefragmentation() == null
                  ? "-"
                  : dash(m.getLastDefragmentation().getTime())));
    }
    out.append(indent(format(members)));
    unanswered.forEach(u -> out.append("  ? ").append(u).append('\n'));
    List<CertificateStatus> certs = st.getCertificates() == null ? List.of() : st.getCertificates();
    if (!certs.isEmpty()) {
      out.append("Certificates:\n");
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("USE", "SECRET", "SUBJECT", "EXPIRES"));
      for (CertificateStatus cert : certs) {
        rows.add(
            List.of(
                dash(cert.getUse()),
                dash(cert.getSecret()),
                dash(cert.getSubject()),
                expires(cert.getNotAfter(), now)));
      }
      out.append(indent(format(rows)));
    }
    return out.toString();
  }

  /** When a certificate expires, and in how long (or how long ago). */
  static String expires(String notAfter, Instant now) {
    if (notAfter == null) {
      return "-";
    }
    Duration left = Duration.between(now, Instant.parse(notAfter));
    return notAfter
        + (left.isNegative()
            ? " (expired " + age(left.negated()) + " ago)"
            : " (in " + age(left) + ")");
  }

  /**
   * The restore source of a Complete backup: its destination, pointing at the snapshot object it
   * wrote ({@code <prefix>/<backup>.db} in the bucket, {@code <subPath>/<backup>.db} on the claim).
   */
  static BackupDestination restoreSource(EtcdBackup backup) {
    BackupDestination d = backup.getSpec().getDestination();
    BackupDestination source = new BackupDestination();
    if (d.getS3() != null) {
      S3BackupDestination s3 = new S3BackupDestination();
      s3.setEndpoint(d.getS3().getEndpoint());
      s3.setBucket(d.getS3().getBucket());
      s3.setKey(BackupPods.snapshotKey(backup));
      s3.setCredentialsSecretRef(d.getS3().getCredentialsSecretRef());
      s3.setRegion(d.getS3().getRegion());
      s3.setForcePathStyle(d.getS3().getForcePathStyle());
      source.setS3(s3);
    } else {
      PVCBackupDestination pvc = new PVCBackupDestination();
      pvc.setClaimName(d.getPvc().getClaimName());
      String dir = d.getPvc().getSubPath() == null ? "" : d.getPvc().getSubPath().trim();
      while (dir.endsWith("/")) {
        dir = dir.substring(0, dir.length() - 1);
      }
      String file = backup.getMetadata().getName() + ".db";
      pvc.setSubPath(dir.isEmpty() ? file : dir + "/" + file);
      source.setPvc(pvc);
    }
    return source;
  }

  /** Rows laid out as kubectl lays out a table. */
  static String format(List<List<String>> rows) {
    int columns = rows.stream().mapToInt(List::size).max().orElse(0);
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(row.get(i));
        if (i < row.size() - 1) {
          line.append(" ".repeat(width[i] - row.get(i).length() + 3));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** {@code namespace/name}. */
  static String key(EtcdCluster c) {
    return c.getMetadata().getNamespace() + "/" + c.getMetadata().getName();
  }

  /** Bytes as people read them: 812 B, 20 KiB, 1.5 MiB, 2.0 GiB; {@code ?} when unknown. */
  static String bytes(long n) {
    if (n < 0) {
      return "?";
    }
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return n / 1024 + " KiB";
    }
    if (n < 1024L * 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
    return String.format(Locale.ROOT, "%.1f GiB", n / (1024.0 * 1024 * 1024));
  }

  /** kubectl's short ages: 45s, 3m, 5h, 12d. */
  static String age(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 3 * 3600) {
      return s / 60 + "m";
    }
    if (s < 48 * 3600) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }

  private static String since(String time, Instant now) {
    return time == null ? "" : " (" + age(Duration.between(Instant.parse(time), now)) + ")";
  }

  private static Optional<Condition> condition(List<Condition> conditions, String type) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private static String indent(String table) {
    return table.lines().map(l -> "  " + l + "\n").reduce("", String::concat);
  }

  private static String dash(String s) {
    return s == null || s.isBlank() ? "-" : s;
  }
}
