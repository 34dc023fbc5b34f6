package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Decides, from what the user asked for and what the operator saw, the next single step and what to
 * report. A pure function: no client, no clock, no I/O; the same inputs always give the same plan.
 * It never reads the resource's status.
 *
 * <h2>The rules, asked in this order; the first that applies decides</h2>
 *
 * The rules come in three tiers ({@link #HALTS}, {@link #WITH_QUORUM}, {@link #WITHOUT_QUORUM}), so
 * that quorum is looked at once: first the halts, whatever the quorum; then, with quorum held, the
 * rules that change membership, pods and data one safe step at a time; without it, the rules that
 * wait, report, or bootstrap a cluster that never formed. A test checks that this list names the
 * rules of {@link #RULES} in the same order. Each rule's Javadoc says the situation it handles and
 * why it sits where it does.
 *
 * <p>Halts:
 *
 * <ol>
 *   <li><b>Paused</b>: the resource carries {@code etcd.aenix.io/paused: "true"}: touch nothing;
 *       report what the other rules see, and what they would do.
 *   <li><b>InvalidSpec</b>: report every field and reason; touch nothing.
 *   <li><b>TlsNotUsable</b>: a Secret of spec.security.tls is missing or would not work; name it,
 *       its key and the problem; start and change nothing.
 *   <li><b>SplitBrain</b>: members answered with more than one cluster ID; touch nothing.
 *   <li><b>AnotherCluster</b>: the members answer with a cluster ID other than the one recorded
 *       when quorum was first seen; touch nothing.
 *   <li><b>StorageKindChanged</b>: the spec's storage kind differs from the StatefulSet's; an
 *       invalid spec, touch nothing.
 *   <li><b>RestoreClaimUnusable</b>: before the cluster formed, the claim spec.bootstrap.restore
 *       restores from is missing, or only one node can mount it while several members' pods would;
 *       refused, nothing created ({@link RestoreClaimRules}).
 *   <li><b>UnsupportedVersionChange</b>: the image names an etcd version more than one minor
 *       version past the cluster version, or below it; touch nothing.
 *   <li><b>VolumeSizeRefused</b>: the spec asks the members' claims to shrink, or to grow when
 *       their StorageClass does not allow it; touch nothing.
 *   <li><b>TlsModeChanged</b>: spec.security turns server TLS off for a cluster that formed (its
 *       pods serve clients over https, the spec http), asks a peer CA of members on etcd's own
 *       certificates, or turns peer TLS off while the peer Secrets the members run are unknown or
 *       gone; refused, touch nothing.
 *   <li><b>CannotReachMembers</b>: members whose pods are Ready do not answer the operator: it
 *       cannot see them, so it touches nothing.
 *   <li><b>RebuildUnderWay</b>: a rebuild from a survivor the user opted into, carried through
 *       ({@link SurvivorRebuild}), and the rebuild pod's clean-up.
 * </ol>
 *
 * <p>With quorum held:
 *
 * <ol>
 *   <li><b>BackupBeforeChange</b>: an EtcdBackupSchedule names the cluster, and an upgrade no
 *       member started or a scale to 0 is pending: take a backup to the schedule's destination and
 *       wait for it, the StatefulSet left as it is; a failed one holds the change unless
 *       spec.backupBeforeChanges says BestEffort ({@link ChangeBackupRules}).
 *   <li><b>DisableAuthBeforeServerTlsOff</b>: server TLS turned off while members serve https with
 *       etcd's authentication on: auth off first, before any member restarts onto http.
 *   <li><b>Hibernate</b>: scaled to 0: the StatefulSet stops every member.
 *   <li><b>ReplaceCorruptMember</b>: etcd raised CORRUPT: a learner is removed, then the member
 *       whose hash of its data differs from the one a quorum of the voters share (it comes back as
 *       a new learner); the alarm is disarmed once every voter agrees ({@link CorruptionRules}).
 *   <li><b>UnwantedLearner</b>: a learner the spec no longer wants: remove it.
 *   <li><b>StartLearner</b>: a learner that has not started: make sure its pod starts on data of
 *       its own.
 *   <li><b>PromoteLearner</b>: a started learner: promote it once healthy.
 *   <li><b>ReplaceLostMember</b>: a member whose pod runs without its data: remove it, if the rest
 *       keep quorum; it comes back as a new learner.
 *   <li><b>ReplaceMemberOnLostNode</b>: spec.replaceLostMemberAfter set, and a member whose data
 *       cannot come back (its node or volume lost for that long): remove it, then clear its claim
 *       and (forcibly, on a lost node) its pod; it comes back as a new learner ({@link NodeRules}).
 *   <li><b>MovePeers</b>: spec.security.tls asks for peer TLS while members' peer URLs are http, or
 *       for none while they are https: roll onto both schemes, update each URL, and back, one step
 *       at a time ({@link TlsMoves}); no member is added meanwhile.
 *   <li><b>ScaleDown</b>: more members than wanted: from the highest ordinal, leadership moved off
 *       first, only if the rest keep quorum.
 *   <li><b>RestoreClaimHoldsScaleUp</b>: a scale-up while spec.bootstrap.restore names a claim only
 *       one node can mount: held until that is removed ({@link RestoreClaimRules}).
 *   <li><b>ScaleUp</b>: fewer members than wanted: add the lowest free ordinal as a learner,
 *       clearing a claim a former member left there first.
 *   <li><b>DeleteScaledDownClaim</b>: whenScaled Delete, and a claim of an ordinal the cluster no
 *       longer has: delete it (the operator alone deletes claims).
 *   <li><b>EnableAuth</b>: spec.security.enableAuth, and a member says auth is off: root role and
 *       user, the operator's certificate user as root, then auth on.
 *   <li><b>DisableAuth</b>: enableAuth not set, and a member says auth is on: off.
 *   <li><b>NoSpace</b>: NOSPACE raised: compact, defragment member by member, disarm ({@link
 *       MaintenanceRules}).
 *   <li><b>ExpandVolumes</b>: claims smaller than the spec asks: grow them, then recreate the
 *       StatefulSet with its pods orphaned ({@link VolumeRules}).
 *   <li><b>RollGate</b>: pods run an old template, but the roll cannot go on yet.
 *   <li><b>RollDownMembers</b>: the stale pod of a member that is down anyway goes first.
 *   <li><b>RollFollower</b>: the next follower, from the highest ordinal, once every member is
 *       healthy, caught up and Ready.
 *   <li><b>RollLeader</b>: the leader last, after moving leadership away.
 *   <li><b>Defragment</b>: the spec's defragmentation policy finds members due: one at a time,
 *       followers first, the leader last after moving leadership away.
 *   <li><b>InSync</b>: every member as wanted: Ready, or the alarm or unhealthy member said.
 * </ol>
 *
 * <p>Without quorum:
 *
 * <ol>
 *   <li><b>MajorityDataLost</b>: quorum lost and a majority lost its data: report it; record the
 *       intent to rebuild only when the user opted in.
 *   <li><b>Hibernated</b>: quorum lost because the cluster was scaled to 0.
 *   <li><b>QuorumLost</b>: quorum lost in a cluster that formed: keep every pod, replace stale pods
 *       of members that are down anyway, wait; destroy nothing.
 *   <li><b>Bootstrap</b>: the cluster never formed: ConfigMap {@code new}, every pod at once.
 * </ol>
 *
 * <p>Whichever rule decides, Degraded says NoSpace while a member reports etcd's NOSPACE alarm
 * ({@link Decisions#degradedByNoSpace}).
 *
 * <p>Requeue: soon while anything is pending, less often when Ready.
 */
public final class Planner {
  /**
   * How often to look when the cluster is Ready and nothing else wakes the operator: events of its
   * objects do, and so does the member watch, which asks every member for its Status every 2 s and
   * wakes the reconcile when one says something new ({@code observe.MemberWatch}). This resync is
   * for what neither looks at: a member list changed by hand, database sizes for the metrics. At 30
   * s it was a sixth of the idle cost of 100 Ready clusters (a JFR of the idle window), for changes
   * that are rare or only read by dashboards.
   */
  public static final Duration READY_RESYNC = Duration.ofSeconds(60);

  /**
   * How often to look at a Ready cluster whose members all run a later minor version than the
   * cluster version, until etcd raises it ({@link Decisions#clusterVersionToBeRaised}).
   */
  public static final Duration VERSION_RESYNC = Duration.ofSeconds(2);

  /** How often to look while something is pending. */
  public static final Duration PENDING_RESYNC = Duration.ofMillis(500);

  /**
   * How often to look while members run but have not formed the cluster yet: they form in well
   * under a second, and nothing else (no pod event) says when.
   */
  public static final Duration FORMING_RESYNC = Duration.ofMillis(300);

  /** How long a restarted member may take to become healthy before the roll is reported stuck. */
  public static final Duration ROLL_DEADLINE = Duration.ofMinutes(5);

  /** The rules that make the operator stand still, or carry on a rebuild, whatever the quorum. */
  static final List<Rule> HALTS =
      List.of(
          new Pause.Paused(),
          new HaltRules.InvalidSpec(),
          new HaltRules.TlsNotUsable(),
          new HaltRules.SplitBrain(),
          new HaltRules.AnotherCluster(),
          new HaltRules.StorageKindChanged(),
          new RestoreClaimRules.RestoreClaimUnusable(),
          new HaltRules.UnsupportedVersionChange(),
          new VolumeRules.VolumeSizeRefused(),
          new HaltRules.TlsModeChanged(),
          new HaltRules.CannotReachMembers(),
          new SurvivorRebuild.RebuildUnderWay());

  /**
   * With quorum held. The backup before a change comes first, then Hibernate takes every cluster
   * scaled to 0, so the rules after it never see one; InSync comes last and always applies.
   */
  static final List<Rule> WITH_QUORUM =
      List.of(
          new ChangeBackupRules.BackupBeforeChange(),
          new AuthRules.DisableAuthBeforeServerTlsOff(),
          new MembershipRules.Hibernate(),
          new CorruptionRules.ReplaceCorruptMember(),
          new LearnerRules.UnwantedLearner(),
          new LearnerRules.StartLearner(),
          new LearnerRules.PromoteLearner(),
          new MembershipRules.ReplaceLostMember(),
          new NodeRules.ReplaceMemberOnLostNode(),
          new TlsMoves.MovePeers(),
          new ScaleRules.ScaleDown(),
          new RestoreClaimRules.RestoreClaimHoldsScaleUp(),
          new ScaleRules.ScaleUp(),
          new ScaleRules.DeleteScaledDownClaim(),
          new AuthRules.EnableAuth(),
          new AuthRules.DisableAuth(),
          new MaintenanceRules.NoSpace(),
          new VolumeRules.ExpandVolumes(),
          new RollRules.RollGate(),
          new RollRules.RollDownMembers(),
          new RollRules.RollFollower(),
          new RollRules.RollLeader(),
          new MaintenanceRules.Defragment(),
          new MembershipRules.InSync());

  /** Without quorum; Bootstrap comes last and always applies. */
  static final List<Rule> WITHOUT_QUORUM =
      List.of(
          new SurvivorRebuild.MajorityDataLost(),
          new QuorumLostRules.Hibernated(),
          new QuorumLostRules.QuorumLost(),
          new QuorumLostRules.Bootstrap());

  /** Every rule, in the order the tiers are asked. */
  static final List<Rule> RULES =
      Stream.of(HALTS, WITH_QUORUM, WITHOUT_QUORUM).flatMap(List::stream).toList();

  private Planner() {}

  /** The plan for what the user asked for and what the operator saw. */
  public static Plan plan(Target target, ClusterView view) {
    Situation s = new Situation(target, Facts.of(target.namespace(), target.name(), view));
    Fired fired = decide(s, HALTS).orElseGet(() -> decide(s, tier(s)).orElseThrow());
    return new Plan(
        fired.rule(), Decisions.degradedByNoSpace(s, fired.decision()), target, s.facts());
  }

  /** What the rules after Paused decide: what the operator would do if it were not paused. */
  static Decision unpaused(Situation s) {
    return decide(s, HALTS.subList(1, HALTS.size()))
        .orElseGet(() -> decide(s, tier(s)).orElseThrow())
        .decision();
  }

  /** The rule that fired and what it decided. */
  record Fired(String rule, Decision decision) {}

  /** The tier of the situation's quorum. */
  static List<Rule> tier(Situation s) {
    return s.facts().quorum() ? WITH_QUORUM : WITHOUT_QUORUM;
  }

  /** The first of {@code rules} that applies; the last rule of each tier always does. */
  static Optional<Fired> decide(Situation s, List<Rule> rules) {
    for (Rule rule : rules) {
      Optional<Decision> decision = rule.decide(s);
      if (decision.isPresent()) {
        return Optional.of(new Fired(rule.name(), decision.get()));
      }
    }
    return Optional.empty();
  }
}
