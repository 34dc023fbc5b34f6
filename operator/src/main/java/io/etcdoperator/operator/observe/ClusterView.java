package io.etcdoperator.operator.observe;

import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.tls.TlsReport;
import java.time.Instant;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything the operator saw of one cluster at one reconcile: its Kubernetes objects and a probe
 * of every member it expects. Immutable; built once per reconcile by the observer and read by the
 * planner, which must find every fact it decides on here (never in the resource's status).
 *
 * @param now when the observation was made (the planner has no clock)
 * @param statefulSet the cluster's StatefulSet, if it exists
 * @param pods member pods by ordinal
 * @param claims data claims by ordinal
 * @param clusterState the cluster-state ConfigMap, if it exists
 * @param probes one probe per expected member, by ordinal
 * @param memberList the etcd member list, as seen by the leader when it answered, else by any
 *     member
 * @param rebuild the rebuild pod, if one exists
 * @param clusterVersion the cluster version a member reported ({@code /version}'s {@code
 *     etcdcluster}, e.g. 3.5.0), when one answered
 * @param restore what the members' restore init containers say
 * @param tls what the cluster's TLS Secrets hold ({@link TlsReport#NONE} without TLS)
 * @param authEnabled whether etcd's authentication is on, as a member said; empty when not asked
 *     (no client certificate, no member answering) or not known (etcd 3.4 cannot tell)
 * @param storageClass the StorageClass of the members' claims, read only while the spec asks for
 *     claims larger than the StatefulSet's template
 * @param placements where each member pod runs and whether its node and volume are there, by
 *     ordinal (empty when the operator cannot read Nodes)
 * @param hashes each member's hash of its data at one revision, by ordinal: asked only while etcd
 *     raised CORRUPT, to tell which member disagrees with the others (empty otherwise)
 */
public record ClusterView(
    Instant now,
    Optional<StatefulSetView> statefulSet,
    SortedMap<Integer, PodView> pods,
    SortedMap<Integer, ClaimView> claims,
    Optional<ClusterState> clusterState,
    SortedMap<Integer, MemberProbe> probes,
    Optional<MemberList> memberList,
    Optional<RebuildView> rebuild,
    Optional<String> clusterVersion,
    RestoreProgress restore,
    TlsReport tls,
    Optional<Boolean> authEnabled,
    Optional<StorageClassView> storageClass,
    SortedMap<Integer, Placement> placements,
    SortedMap<Integer, MemberHash> hashes) {

  /** The view without hashes of the members' data (asked only when etcd raised CORRUPT). */
  public ClusterView(
      Instant now,
      Optional<StatefulSetView> statefulSet,
      SortedMap<Integer, PodView> pods,
      SortedMap<Integer, ClaimView> claims,
      Optional<ClusterState> clusterState,
      SortedMap<Integer, MemberProbe> probes,
      Optional<MemberList> memberList,
      Optional<RebuildView> rebuild,
      Optional<String> clusterVersion,
      RestoreProgress restore,
      TlsReport tls,
      Optional<Boolean> authEnabled,
      Optional<StorageClassView> storageClass,
      SortedMap<Integer, Placement> placements) {
    this(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        tls,
        authEnabled,
        storageClass,
        placements,
        new TreeMap<>());
  }

  public ClusterView(
      Instant now,
      Optional<StatefulSetView> statefulSet,
      SortedMap<Integer, PodView> pods,
      SortedMap<Integer, ClaimView> claims,
      Optional<ClusterState> clusterState,
      SortedMap<Integer, MemberProbe> probes,
      Optional<MemberList> memberList,
      Optional<RebuildView> rebuild,
      Optional<String> clusterVersion,
      RestoreProgress restore,
      TlsReport tls,
      Optional<Boolean> authEnabled) {
    this(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        tls,
        authEnabled,
        Optional.empty(),
        new TreeMap<>());
  }

  public ClusterView(
      Instant now,
      Optional<StatefulSetView> statefulSet,
      SortedMap<Integer, PodView> pods,
      SortedMap<Integer, ClaimView> claims,
      Optional<ClusterState> clusterState,
      SortedMap<Integer, MemberProbe> probes,
      Optional<MemberList> memberList) {
    this(now, statefulSet, pods, claims, clusterState, probes, memberList, Optional.empty());
  }

  public ClusterView(
      Instant now,
      Optional<StatefulSetView> statefulSet,
      SortedMap<Integer, PodView> pods,
      SortedMap<Integer, ClaimView> claims,
      Optional<ClusterState> clusterState,
      SortedMap<Integer, MemberProbe> probes,
      Optional<MemberList> memberList,
      Optional<RebuildView> rebuild) {
    this(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        Optional.empty(),
        RestoreProgress.NONE,
        TlsReport.NONE,
        Optional.empty(),
        Optional.empty(),
        new TreeMap<>());
  }

  public ClusterView {
    pods = Collections.unmodifiableSortedMap(new TreeMap<>(pods));
    claims = Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    probes = Collections.unmodifiableSortedMap(new TreeMap<>(probes));
    placements = Collections.unmodifiableSortedMap(new TreeMap<>(placements));
    hashes = Collections.unmodifiableSortedMap(new TreeMap<>(hashes));
  }

  /** The same view, with the cluster version a member reported. */
  public ClusterView withClusterVersion(String version) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        Optional.ofNullable(version),
        restore,
        tls,
        authEnabled,
        storageClass,
        placements,
        hashes);
  }

  /** The same view, with what the members' restore init containers say. */
  public ClusterView withRestore(RestoreProgress value) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        value,
        tls,
        authEnabled,
        storageClass,
        placements,
        hashes);
  }

  /** The same view, with what the TLS Secrets hold and whether auth is on. */
  public ClusterView withTls(TlsReport value, Optional<Boolean> auth) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        value,
        auth);
  }

  public Optional<PodView> pod(int ordinal) {
    return Optional.ofNullable(pods.get(ordinal));
  }

  public Optional<MemberProbe> probe(int ordinal) {
    return Optional.ofNullable(probes.get(ordinal));
  }

  /** The same view, with the StorageClass of the members' claims. */
  public ClusterView withStorageClass(Optional<StorageClassView> value) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        tls,
        authEnabled,
        value,
        placements,
        hashes);
  }

  /** The same view, with where each member pod runs. */
  public ClusterView withPlacements(SortedMap<Integer, Placement> value) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        tls,
        authEnabled,
        storageClass,
        value,
        hashes);
  }

  /** Where the pod of {@code ordinal} runs; {@link Placement#UNKNOWN} when not known. */
  public Placement placement(int ordinal) {
    return placements.getOrDefault(ordinal, Placement.UNKNOWN);
  }

  /** The same view, with each member's hash of its data at one revision. */
  public ClusterView withHashes(SortedMap<Integer, MemberHash> value) {
    return new ClusterView(
        now,
        statefulSet,
        pods,
        claims,
        clusterState,
        probes,
        memberList,
        rebuild,
        clusterVersion,
        restore,
        tls,
        authEnabled,
        storageClass,
        placements,
        value);
  }
}
