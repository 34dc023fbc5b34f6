package io.etcdoperator.operator.observe;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one member said about itself when probed, or why it did not answer.
 *
 * @param ordinal the StatefulSet ordinal probed
 * @param endpoint the client URL probed
 * @param reachable it answered within the deadline
 * @param error why it did not answer (or what it reported wrong), else null
 * @param clusterId the cluster ID it belongs to (0 when unknown)
 * @param memberId its own member ID
 * @param leaderId the leader it follows (0: none)
 * @param raftTerm current raft term
 * @param raftIndex raft index (committed)
 * @param learner it is a learner
 * @param version etcd server version
 * @param dbSize backend size in bytes
 * @param alarms active alarms raised on this member (e.g. NOSPACE, CORRUPT)
 * @param revision the key-value store revision it answered at; when its client port did not answer,
 *     the one its metrics endpoint reported (0: unknown)
 * @param metricsIndex when its client port did not answer: the commit index its metrics endpoint
 *     reported (0: unknown). A member restarted without quorum answers only there.
 * @param refused when it did not answer: its host refused the connection (nothing listens, the
 *     member is down), rather than staying silent (which says only that it cannot be reached)
 * @param dbSizeInUse the part of the backend in use, in bytes (etcd 3.4+; 0 when not reported): the
 *     rest of {@code dbSize} is free pages, which only a defragmentation gives back
 */
public record MemberProbe(
    int ordinal,
    String endpoint,
    boolean reachable,
    String error,
    long clusterId,
    long memberId,
    long leaderId,
    long raftTerm,
    long raftIndex,
    boolean learner,
    String version,
    long dbSize,
    List<String> alarms,
    long revision,
    long metricsIndex,
    boolean refused,
    long dbSizeInUse) {

  public MemberProbe {
    alarms = List.copyOf(alarms);
  }

  public MemberProbe(
      int ordinal,
      String endpoint,
      boolean reachable,
      String error,
      long clusterId,
      long memberId,
      long leaderId,
      long raftTerm,
      long raftIndex,
      boolean learner,
      String version,
      long dbSize,
      List<String> alarms,
      long revision,
      long metricsIndex,
      boolean refused) {
    this(
        ordinal,
        endpoint,
        reachable,
        error,
        clusterId,
        memberId,
        leaderId,
        raftTerm,
        raftIndex,
        learner,
        version,
        dbSize,
        alarms,
        revision,
        metricsIndex,
        refused,
        0);
  }

  /** The part of the database file not in use, in bytes (0 when the size in use is unknown). */
  public long reclaimable() {
    return dbSizeInUse <= 0 ? 0 : Math.max(0, dbSize - dbSizeInUse);
  }

  public MemberProbe(
      int ordinal,
      String endpoint,
      boolean reachable,
      String error,
      long clusterId,
      long memberId,
      long leaderId,
      long raftTerm,
      long raftIndex,
      boolean learner,
      String version,
      long dbSize,
      List<String> alarms,
      long revision,
      long metricsIndex) {
    this(
        ordinal,
        endpoint,
        reachable,
        error,
        clusterId,
        memberId,
        leaderId,
        raftTerm,
        raftIndex,
        learner,
        version,
        dbSize,
        alarms,
        revision,
        metricsIndex,
        false);
  }

  public MemberProbe(
      int ordinal,
      String endpoint,
      boolean reachable,
      String error,
      long clusterId,
      long memberId,
      long leaderId,
      long raftTerm,
      long raftIndex,
      boolean learner,
      String version,
      long dbSize,
      List<String> alarms) {
    this(
        ordinal, endpoint, reachable, error, clusterId, memberId, leaderId, raftTerm, raftIndex,
        learner, version, dbSize, alarms, 0, 0);
  }

  /**
   * This probe of a member whose client port did not answer, with what its metrics said: its commit
   * index and its key-value store's revision (0 when the page lacks it).
   */
  public MemberProbe withMetrics(long index, long storeRevision) {
    return new MemberProbe(
        ordinal,
        endpoint,
        reachable,
        error,
        clusterId,
        memberId,
        leaderId,
        raftTerm,
        raftIndex,
        learner,
        version,
        dbSize,
        alarms,
        reachable ? revision : storeRevision,
        index,
        refused,
        dbSizeInUse);
  }

  /** How far this member's log goes, by whatever it told: its status, else its metrics. */
  public long knownIndex() {
    return reachable ? raftIndex : metricsIndex;
  }

  /** A member that did not answer. */
  public static MemberProbe unreachable(int ordinal, String endpoint, String error) {
    return unreachable(ordinal, endpoint, error, false);
  }

  /** A member that did not answer; {@code refused}: its host refused the connection. */
  public static MemberProbe unreachable(
      int ordinal, String endpoint, String error, boolean refused) {
    return new MemberProbe(
        ordinal, endpoint, false, error, 0, 0, 0, 0, 0, false, null, 0, List.of(), 0, 0, refused);
  }

  /**
   * It did not answer, its host did not refuse, and its metrics told nothing: the operator cannot
   * see it at all. (A member whose metrics answered is reachable; its client port is what fails.)
   */
  public boolean silent() {
    return !reachable && !refused && metricsIndex == 0;
  }

  /**
   * The alarms' types ({@code NOSPACE}, {@code CORRUPT}): etcd's Status reports each raised alarm
   * as {@code "memberID:<id> alarm:<TYPE> "}; anything else it reports is kept as written.
   */
  public List<String> alarmTypes() {
    return alarms.stream()
        .map(
            a -> {
              Matcher m = ALARM.matcher(a);
              return m.find() ? m.group(1) : a.trim();
            })
        .distinct()
        .toList();
  }

  private static final Pattern ALARM = Pattern.compile("alarm:([A-Z_]+)");

  public boolean seesLeader() {
    return reachable && leaderId != 0;
  }
}
