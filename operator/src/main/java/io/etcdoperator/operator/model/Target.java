package io.etcdoperator.operator.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the user asked for, as far as the planner needs it: composed from the resource by {@link
 * DesiredCluster}, never from its status.
 *
 * @param namespace the resource's namespace
 * @param name the resource's name
 * @param generation metadata.generation, echoed as observedGeneration
 * @param desired the resolved spec, absent when the spec is invalid
 * @param problems why the spec is invalid ({@code field: reason}); empty when valid
 * @param rebuild what the user said about rebuilding from a survivor
 * @param newestBackup the newest complete EtcdBackup of this cluster, described for a human (name,
 *     revision, time, where): the way out when the data is gone
 * @param paused the resource carries {@value Names#PAUSED_ANNOTATION}{@code : "true"}: the operator
 *     changes nothing, and still observes and reports
 * @param replaceLostMemberAfter spec.replaceLostMemberAfter: how long a member whose node is lost
 *     may stay away before it is replaced; empty: never replaced automatically
 * @param changeBackups what is needed to back the cluster up before an upgrade or scaling to 0
 * @param restoreClaim the claim spec.bootstrap.restore restores from, when it names one
 */
public record Target(
    String namespace,
    String name,
    long generation,
    Optional<Desired> desired,
    List<String> problems,
    Rebuild rebuild,
    Optional<String> newestBackup,
    boolean paused,
    Optional<Duration> replaceLostMemberAfter,
    ChangeBackups changeBackups,
    Optional<SourceClaim> restoreClaim) {
  public Target {
    problems = List.copyOf(problems);
  }

  public Target(
      String namespace,
      String name,
      long generation,
      Optional<Desired> desired,
      List<String> problems,
      Rebuild rebuild,
      Optional<String> newestBackup,
      boolean paused,
      Optional<Duration> replaceLostMemberAfter) {
    this(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        paused,
        replaceLostMemberAfter,
        ChangeBackups.NONE,
        Optional.empty());
  }

  public Target withChangeBackups(ChangeBackups value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        paused,
        replaceLostMemberAfter,
        value,
        restoreClaim);
  }

  public Target withRestoreClaim(Optional<SourceClaim> value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        paused,
        replaceLostMemberAfter,
        changeBackups,
        value);
  }

  public Target(
      String namespace,
      String name,
      long generation,
      Optional<Desired> desired,
      List<String> problems,
      Rebuild rebuild,
      Optional<String> newestBackup,
      boolean paused) {
    this(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        paused,
        Optional.empty());
  }

  public Target withReplaceLostMemberAfter(Optional<Duration> value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        paused,
        value,
        changeBackups,
        restoreClaim);
  }

  public Target(
      String namespace,
      String name,
      long generation,
      Optional<Desired> desired,
      List<String> problems,
      Rebuild rebuild,
      Optional<String> newestBackup) {
    this(namespace, name, generation, desired, problems, rebuild, newestBackup, false);
  }

  public Target withPaused(boolean value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        newestBackup,
        value,
        replaceLostMemberAfter,
        changeBackups,
        restoreClaim);
  }

  public Target(
      String namespace,
      String name,
      long generation,
      Optional<Desired> desired,
      List<String> problems,
      Rebuild rebuild) {
    this(namespace, name, generation, desired, problems, rebuild, Optional.empty());
  }

  public static Target valid(String namespace, String name, long generation, Desired desired) {
    return new Target(namespace, name, generation, Optional.of(desired), List.of(), Rebuild.NONE);
  }

  public static Target invalid(
      String namespace, String name, long generation, List<String> problems) {
    return new Target(namespace, name, generation, Optional.empty(), problems, Rebuild.NONE);
  }

  public Target withRebuild(Rebuild value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        value,
        newestBackup,
        paused,
        replaceLostMemberAfter,
        changeBackups,
        restoreClaim);
  }

  public Target withNewestBackup(Optional<String> value) {
    return new Target(
        namespace,
        name,
        generation,
        desired,
        problems,
        rebuild,
        value,
        paused,
        replaceLostMemberAfter,
        changeBackups,
        restoreClaim);
  }

  /**
   * The resolved spec.
   *
   * @param replicas desired member count
   * @param podTemplateHash hash of the pod template members should run
   * @param persistentStorage data in claims (else emptyDir, lost with the pod)
   * @param clusterToken the initial-cluster token of this incarnation of the cluster
   * @param image the etcd container's image
   * @param claims what the spec's retention policy asks of the operator for members' claims
   * @param restoreFrom the snapshot every member starts from ({@code spec.bootstrap.restore}), as a
   *     URI; empty: the cluster starts empty
   * @param security what spec.security asks for (the schemes of new members' URLs, auth)
   * @param maintenance defragmentation policy, space quota, claim size
   */
  public record Desired(
      int replicas,
      String podTemplateHash,
      boolean persistentStorage,
      String clusterToken,
      String image,
      ClaimPolicy claims,
      Optional<String> restoreFrom,
      Security security,
      Maintenance maintenance) {
    public Desired(
        int replicas,
        String podTemplateHash,
        boolean persistentStorage,
        String clusterToken,
        String image,
        ClaimPolicy claims,
        Optional<String> restoreFrom,
        Security security) {
      this(
          replicas,
          podTemplateHash,
          persistentStorage,
          clusterToken,
          image,
          claims,
          restoreFrom,
          security,
          persistentStorage ? Maintenance.DEFAULTS : Maintenance.WITHOUT_CLAIM);
    }

    public Desired withMaintenance(Maintenance value) {
      return new Desired(
          replicas,
          podTemplateHash,
          persistentStorage,
          clusterToken,
          image,
          claims,
          restoreFrom,
          security,
          value);
    }

    public Desired(
        int replicas,
        String podTemplateHash,
        boolean persistentStorage,
        String clusterToken,
        String image) {
      this(replicas, podTemplateHash, persistentStorage, clusterToken, image, ClaimPolicy.RETAIN);
    }

    public Desired(
        int replicas,
        String podTemplateHash,
        boolean persistentStorage,
        String clusterToken,
        String image,
        ClaimPolicy claims) {
      this(
          replicas,
          podTemplateHash,
          persistentStorage,
          clusterToken,
          image,
          claims,
          Optional.empty(),
          Security.NONE);
    }

    public Desired(
        int replicas,
        String podTemplateHash,
        boolean persistentStorage,
        String clusterToken,
        String image,
        Optional<String> restoreFrom) {
      this(
          replicas,
          podTemplateHash,
          persistentStorage,
          clusterToken,
          image,
          ClaimPolicy.RETAIN,
          restoreFrom,
          Security.NONE);
    }

    /** The etcd version the image's tag names; empty for a tag that is no version. */
    public Optional<EtcdVersion> etcdVersion() {
      return EtcdVersion.ofImage(image);
    }
  }

  /**
   * What to do with members' claims, from {@code
   * spec.storage.persistentVolumeClaimRetentionPolicy}.
   *
   * @param onScaleDown delete the claim of a member removed from etcd on a scale-down
   * @param withCluster the claims go with the EtcdCluster (it owns them)
   */
  public record ClaimPolicy(boolean onScaleDown, boolean withCluster) {
    public static final ClaimPolicy RETAIN = new ClaimPolicy(false, false);
  }

  /**
   * The opt-in to rebuild from a survivor: the annotation {@code
   * etcd.aenix.io/rebuild-from-survivor} on the resource, whose value must be its UID (optionally
   * {@code <uid>/<anything>}).
   *
   * @param uid the resource's UID (to tell the user what to write)
   * @param optIn the annotation's value when it names this resource
   * @param problem why an annotation that is there does not count
   */
  public record Rebuild(String uid, Optional<String> optIn, Optional<String> problem) {
    public static final Rebuild NONE = new Rebuild("", Optional.empty(), Optional.empty());

    /** Reads the annotation's value (null: absent) against the resource's UID. */
    public static Rebuild of(String uid, String annotation) {
      if (annotation == null || annotation.isBlank()) {
        return new Rebuild(uid, Optional.empty(), Optional.empty());
      }
      String value = annotation.trim();
      if (uid != null && !uid.isEmpty() && (value.equals(uid) || value.startsWith(uid + "/"))) {
        return new Rebuild(uid, Optional.of(value), Optional.empty());
      }
      return new Rebuild(
          uid,
          Optional.empty(),
          Optional.of(
              "the annotation etcd.aenix.io/rebuild-from-survivor must be this cluster's UID ("
                  + uid
                  + "), optionally followed by /<anything>; it is ignored"));
    }
  }
}
