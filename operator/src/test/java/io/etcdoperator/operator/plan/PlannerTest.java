package io.etcdoperator.operator.plan;

import static io.etcdoperator.operator.plan.Views.NAME;
import static io.etcdoperator.operator.plan.Views.NS;
import static io.etcdoperator.operator.plan.Views.id;
import static io.etcdoperator.operator.plan.Views.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.status.StatusRenderer;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per situation: what the planner decides and reports. */
class PlannerTest {
  /**
   * What a row expects: the rule that fires, the step, the StatefulSet replicas (-1: untouched),
   * ConfigMap state, two conditions.
   */
  record Expect(
      String rule, Step step, int stsReplicas, String configMap, String available, String ready) {}

  static final String NONE = "none";
  static final String NEW = "new";
  static final String EXISTING = "existing";

  /** Usable TLS material whose client certificate's CN is {@code user}. */
  static io.etcdoperator.operator.tls.TlsReport clientAs(String user) {
    return new io.etcdoperator.operator.tls.TlsReport(
        List.of(), List.of(), List.of(), Optional.empty(), "f1", Optional.of(user));
  }

  static Arguments row(String name, Target target, Views view, Expect expect) {
    return Arguments.of(name, target, view.build(), expect);
  }

  static Expect expect(String rule, Step step, int sts, String cm, String available, String ready) {
    return new Expect(rule, step, sts, cm, available, ready);
  }

  static Step.DeletePods delete(String reasonPrefix, int... ordinals) {
    return new Step.DeletePods(
        java.util.Arrays.stream(ordinals).mapToObj(i -> Names.pod(NAME, i)).toList(), reasonPrefix);
  }

  static Step.MoveLeader move(int from, int to) {
    return new Step.MoveLeader(
        Names.member(NAME, from), id(from), from, Names.member(NAME, to), id(to), to);
  }

  static Step.RemoveMember remove(int i, String reason) {
    return new Step.RemoveMember(i, Names.member(NAME, i), id(i), reason);
  }

  static final String NEVER_FORMED =
      "the cluster never formed: pods with an old template are replaced all at once";
  static final String DOWN_AND_STALE =
      "their members are down and their template changed: replacing them cannot cost quorum";

  static final String COMPACTED = "4000@2026-11-29T11:59:00Z";

  static final Duration ELEVEN_MINUTES = Duration.ofMinutes(11);
  static final io.etcdoperator.operator.observe.Placement.NodeState UNREACHABLE =
      io.etcdoperator.operator.observe.Placement.NodeState.UNREACHABLE;
  static final io.etcdoperator.operator.observe.Placement.NodeState GONE =
      io.etcdoperator.operator.observe.Placement.NodeState.GONE;
  static final io.etcdoperator.operator.observe.Placement.NodeState CORDONED =
      io.etcdoperator.operator.observe.Placement.NodeState.CORDONED;

  /** {@code replicas} members, replaced after {@code wait} when their node is lost. */
  static Target waitingFor(int replicas, String wait) {
    return target(replicas)
        .withReplaceLostMemberAfter(io.etcdoperator.operator.model.Durations.parse(wait));
  }

  /** Three healthy members, every one of which reports NOSPACE (alarms are cluster-wide). */
  static Views noSpace() {
    return Views.healthy(3).alarm(0, "NOSPACE").alarm(1, "NOSPACE").alarm(2, "NOSPACE");
  }

  /** Three members answering with quorum, every one of which reports CORRUPT. */
  static Views corrupt() {
    return corruptOf(3);
  }

  /** Three members, test-{@code i} down after etcd's check at its start refused its data. */
  static Views refusedAtStart(int i) {
    return Views.healthy(3)
        .down(i)
        .lastTermination(
            i,
            "{\"level\":\"fatal\",\"msg\":\"failed to start etcd\","
                + "\"error\":\"found data inconsistency with peers\"}");
  }

  static Views corruptOf(int n) {
    Views v = Views.healthy(n);
    for (int i = 0; i < n; i++) {
      v.alarm(i, "CORRUPT");
    }
    return v;
  }

  /** The annotation recording a defragmentation of each ordinal, after {@link #COMPACTED}. */
  static String defragmented(int... ordinals) {
    StringBuilder json = new StringBuilder("{");
    for (int i : ordinals) {
      json.append(json.length() > 1 ? "," : "")
          .append('"')
          .append(Names.member(NAME, i))
          .append("\":{\"at\":\"2026-11-29T11:59:30Z\",\"tookMillis\":120,")
          .append("\"before\":2147483648,\"after\":20480}");
    }
    return json.append('}').toString();
  }

  static io.etcdoperator.operator.model.Maintenance threshold(int percent) {
    var d = io.etcdoperator.operator.model.Maintenance.DEFAULTS;
    return new io.etcdoperator.operator.model.Maintenance(
        Optional.empty(),
        OptionalInt.of(percent),
        d.minReclaimable(),
        d.quotaBytes(),
        d.storageBytes(),
        d.storage());
  }

  static io.etcdoperator.operator.model.Maintenance storage(String size) {
    var d = io.etcdoperator.operator.model.Maintenance.DEFAULTS;
    return new io.etcdoperator.operator.model.Maintenance(
        Optional.empty(),
        OptionalInt.empty(),
        d.minReclaimable(),
        d.quotaBytes(),
        new io.fabric8.kubernetes.api.model.Quantity(size).getNumericalAmount().longValue(),
        size);
  }

  static Target withMaintenance(int replicas, io.etcdoperator.operator.model.Maintenance m) {
    return Target.valid(NS, NAME, 7, Views.desired(replicas).withMaintenance(m));
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        // --- never formed: bootstrap ---
        row(
            "fresh: nothing exists yet",
            target(3),
            Views.fresh(),
            expect(
                "Bootstrap",
                new Step.None(),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "bootstrapping: pods up, nothing answers",
            target(3),
            Views.bootstrapping(3),
            expect(
                "Bootstrap",
                new Step.None(),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "an earlier cluster's marked claims still being deleted, nothing else: their data is"
                + " going, so this cluster never formed: bootstrap (CI, stop 40)",
            target(3),
            Views.fresh().claimTerminating(0).claimTerminating(1).claimTerminating(2),
            expect(
                "Bootstrap",
                new Step.None(),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "members answer but see no leader, the ConfigMap still says new: etcd serves clients only"
                + " once it joined a cluster with quorum, so it formed: quorum lost, not bootstrapping",
            target(3),
            Views.bootstrapping(3).answeringWithoutQuorum(0).answeringWithoutQuorum(1),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "seed 000: never formed, pods run an old template: all replaced at once",
            target(3),
            Views.bootstrapping(3)
                .podWithHash(0, "nginx")
                .podWithHash(1, "nginx")
                .podWithHash(2, "nginx"),
            expect(
                "Bootstrap",
                delete(NEVER_FORMED, 0, 1, 2),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "never formed, StatefulSet not yet on the new template: wait for it first",
            target(3),
            Views.bootstrapping(3).statefulSet(3, "nginx", true).podWithHash(0, "nginx"),
            expect(
                "Bootstrap",
                new Step.None(),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "never formed, replicas changed before forming: new with the new count",
            target(5),
            Views.bootstrapping(3),
            expect(
                "Bootstrap",
                new Step.None(),
                5,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        // --- quorum held ---
        row(
            "healthy: nothing to do",
            target(3),
            Views.healthy(3),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "healthy, but a member's pod is being deleted (the last of a roll): not Ready, the"
                + " client Service sends no client to a terminating pod (benchmark, stop 41)",
            target(3),
            Views.healthy(3).terminating(0),
            expect(
                "InSync",
                new Step.Wait(
                    "pod test-0 to be replaced: it is terminating, and the client Service sends"
                        + " no client to a terminating pod"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/PodsNotReady")),
        row(
            "healthy, but a member's pod not Ready yet: not Ready, clients cannot reach it",
            target(3),
            Views.healthy(3).pod(2, true, false),
            expect(
                "InSync",
                new Step.Wait(
                    "pod test-2 to be Ready: the client Service sends clients to Ready pods only"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/PodsNotReady")),
        row(
            "healthy, ConfigMap still says new: flips to existing",
            target(3),
            Views.healthy(3).clusterState(false, 3),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "healthy, ConfigMap deleted by someone: rewritten as existing",
            target(3),
            Views.healthy(3).noClusterState(),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "one member killed: reported, nothing removed",
            target(3),
            Views.healthy(3).down(2),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "one member frozen: reported, nothing removed",
            target(3),
            Views.healthy(3).frozen(1),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "one member silent while its pod is Ready: the operator cannot see it, touches nothing",
            target(3),
            Views.healthy(3).podWithHash(1, "h0").unreachable(1, "DEADLINE_EXCEEDED"),
            expect(
                "CannotReachMembers",
                new Step.Wait("the operator to reach every member whose pod is Ready"),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/CannotReachMembers")),
        row(
            "every member silent while Ready, podTemplate changed: no roll, quorum unknown",
            target(3),
            Views.healthy(3)
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .unreachable(0, "UNAVAILABLE: Unable to resolve host")
                .unreachable(1, "UNAVAILABLE: Unable to resolve host")
                .unreachable(2, "UNAVAILABLE: Unable to resolve host"),
            expect(
                "CannotReachMembers",
                new Step.Wait("the operator to reach every member whose pod is Ready"),
                -1,
                NONE,
                "Unknown/CannotReachMembers",
                "Unknown/CannotReachMembers")),
        row(
            "every member silent while Ready, replicas raised: nothing added",
            target(5),
            Views.healthy(3)
                .unreachable(0, "DEADLINE_EXCEEDED")
                .unreachable(1, "DEADLINE_EXCEEDED")
                .unreachable(2, "DEADLINE_EXCEEDED"),
            expect(
                "CannotReachMembers",
                new Step.Wait("the operator to reach every member whose pod is Ready"),
                -1,
                NONE,
                "Unknown/CannotReachMembers",
                "Unknown/CannotReachMembers")),
        row(
            "a member whose host refuses while its pod is still Ready: it is down, not unseen",
            target(3),
            Views.healthy(3).refused(1),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "one member's pod deleted: StatefulSet recreates it",
            target(3),
            Views.healthy(3).noPod(1).unreachable(1, "UnknownHost"),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "CORRUPT raised, no member could hash its data: wait, said, nothing touched",
            target(3),
            corrupt(),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a quorum of voters that agree"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, test-2's hash differs from the two others': remove test-2",
            target(3),
            corrupt().hash(0, 90, 0xaa).hash(1, 90, 0xaa).hash(2, 90, 0xbb),
            expect(
                "ReplaceCorruptMember",
                remove(
                    2,
                    "its data differs from the other members' (etcd raised CORRUPT);"
                        + " it comes back as a new member on empty data"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, the leader's hash differs: leadership moves off it first",
            target(3),
            corrupt().hash(0, 90, 0xbb).hash(1, 90, 0xaa).hash(2, 90, 0xaa),
            expect(
                "ReplaceCorruptMember",
                move(0, 1),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, one voter down and the two that answer differ: no quorum agrees, wait",
            target(3),
            corrupt().down(1).hash(0, 90, 0xaa).hash(2, 90, 0xbb),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a quorum of voters that agree"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, five members, two agree and three differ each: nothing is right",
            target(5),
            corruptOf(5)
                .hash(0, 90, 0xaa)
                .hash(1, 90, 0xaa)
                .hash(2, 90, 0xb2)
                .hash(3, 90, 0xb3)
                .hash(4, 90, 0xb4),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a quorum of voters that agree"),
                5,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, a member that answers gave no hash at that revision: not disarmed",
            target(3),
            corrupt().hash(0, 90, 0xaa).hash(1, 90, 0xaa).hash(2, 89, 0xbb),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a hash of the data of test-2"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, the member that differs was removed: disarm",
            target(3),
            corrupt().notMember(2).hash(0, 90, 0xaa).hash(1, 90, 0xaa),
            expect(
                "ReplaceCorruptMember",
                new Step.Disarm(
                    "CORRUPT", "every voter holds the same data (hash aa at revision 90)"),
                2,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised with a learner: the learner goes first (etcd cannot hash a learner)",
            target(4),
            corrupt().learner(3, true).hash(0, 90, 0xaa).hash(1, 90, 0xaa).hash(2, 90, 0xbb),
            expect(
                "ReplaceCorruptMember",
                new Step.RemoveMember(
                    3,
                    "test-3",
                    id(3),
                    "etcd raised CORRUPT and a learner cannot hash its data to be compared;"
                        + " it comes back as a new learner"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, test-2 hashes alike but is past the revision hashed: it differs",
            target(3),
            corrupt().hash(0, 90, 0xaa).hash(1, 90, 0xaa).hash(2, id(2), 90, 0xaa, 95),
            expect(
                "ReplaceCorruptMember",
                remove(
                    2,
                    "its data differs from the other members' (etcd raised CORRUPT);"
                        + " it comes back as a new member on empty data"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, test-2 at another revision with the leader's raft log: it differs",
            target(3),
            corrupt().revisionAt(2, 85).hash(0, 90, 0xaa).hash(1, 90, 0xaa),
            expect(
                "ReplaceCorruptMember",
                remove(
                    2,
                    "its data differs from the other members' (etcd raised CORRUPT);"
                        + " it comes back as a new member on empty data"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, test-2 at another revision and behind in raft: waited for",
            target(3),
            corrupt().revisionAt(2, 85).raftIndex(2, 1).hash(0, 90, 0xaa).hash(1, 90, 0xaa),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a hash of the data of test-2"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, pod test-2 answered as another member: no hash of test-2, wait",
            target(3),
            corrupt().hash(0, 90, 0xaa).hash(1, 90, 0xaa).hash(2, 0x999, 90, 0xbb, 90),
            expect(
                "ReplaceCorruptMember",
                new Step.Wait("a hash of the data of test-2"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "CORRUPT raised, those that answer agree, a voter down: not disarmed, the rule steps"
                + " aside",
            target(3),
            corrupt().down(2).hash(0, 90, 0xaa).hash(1, 90, 0xaa),
            expect("InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "False/AlarmRaised")),
        row(
            "a member refused to start on data that differs from a peer's, the others agree:"
                + " replaced as lost",
            target(3),
            refusedAtStart(2).hash(0, 90, 0xaa).hash(1, 90, 0xaa),
            expect(
                "ReplaceLostMember",
                remove(2, "its pod runs without its data; it comes back as a new member"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "a member refused to start on diverged data, the running two differ: the odd one may"
                + " be running, wait",
            target(3),
            refusedAtStart(2).hash(0, 90, 0xaa).hash(1, 90, 0xbb),
            expect(
                "ReplaceLostMember",
                new Step.Wait("the running members' hashes of their data to agree"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        row(
            "a member refused to start on diverged data, no hashes yet: wait",
            target(3),
            refusedAtStart(2),
            expect(
                "ReplaceLostMember",
                new Step.Wait("the running members' hashes of their data to agree"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DataDiverged")),
        // --- upkeep: NOSPACE recovery, defragmentation, volume expansion, pause ---
        row(
            "NOSPACE raised, nothing compacted yet: compact, keeping the last 1000 revisions",
            target(3),
            noSpace().revision(5000),
            expect(
                "NoSpace",
                new Step.Compact(
                    4000, "NOSPACE: history before the last 1000 revisions goes first"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/NoSpace")),
        row(
            "NOSPACE, compacted: defragment the follower of the highest ordinal first",
            target(3),
            noSpace().revision(5000).stateAnnotation(Names.COMPACTED_ANNOTATION, COMPACTED),
            expect(
                "NoSpace",
                new Step.Defragment(
                    2,
                    Names.member(NAME, 2),
                    id(2),
                    "NOSPACE: giving back what the compaction freed"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/NoSpace")),
        row(
            "NOSPACE, compacted, followers done: leadership moves off before the leader's turn",
            target(3),
            noSpace()
                .revision(5000)
                .stateAnnotation(Names.COMPACTED_ANNOTATION, COMPACTED)
                .stateAnnotation(Names.DEFRAGMENTED_ANNOTATION, defragmented(1, 2)),
            expect("NoSpace", move(0, 1), 3, EXISTING, "True/QuorumHeld", "False/NoSpace")),
        row(
            "NOSPACE, every member defragmented since the compaction and below the quota: disarm",
            target(3),
            noSpace()
                .revision(5000)
                .stateAnnotation(Names.COMPACTED_ANNOTATION, COMPACTED)
                .stateAnnotation(Names.DEFRAGMENTED_ANNOTATION, defragmented(0, 1, 2)),
            expect(
                "NoSpace",
                new Step.Disarm(
                    "NOSPACE", "every member's database is below 95% of the quota again"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/NoSpace")),
        row(
            "NOSPACE, the whole history compacted, defragmented, still over: said, nothing to do",
            target(3),
            noSpace()
                .revision(5000)
                .dbSize(0, 3L << 30, 3L << 30)
                .stateAnnotation(Names.COMPACTED_ANNOTATION, "5000@2026-11-29T11:59:00Z")
                .stateAnnotation(Names.DEFRAGMENTED_ANNOTATION, defragmented(0, 1, 2)),
            expect("NoSpace", new Step.None(), 3, EXISTING, "True/QuorumHeld", "False/NoSpace")),
        row(
            "a follower past the fragmentation threshold: defragment it",
            withMaintenance(3, threshold(50)),
            Views.healthy(3).dbSize(1, 100L << 20, 10L << 20),
            expect(
                "Defragment",
                new Step.Defragment(
                    1,
                    Names.member(NAME, 1),
                    id(1),
                    "fragmented past spec.defragmentation.threshold"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/Defragmenting")),
        row(
            "below the threshold's minimum to reclaim: nothing to defragment",
            withMaintenance(3, threshold(50)),
            Views.healthy(3).dbSize(1, 100L << 10, 10L << 10),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "the leader past the threshold: leadership moves off first",
            withMaintenance(3, threshold(50)),
            Views.healthy(3).dbSize(0, 100L << 20, 10L << 20),
            expect(
                "Defragment", move(0, 1), 3, EXISTING, "True/QuorumHeld", "False/Defragmenting")),
        row(
            "a follower past the threshold while another is behind: wait",
            withMaintenance(3, threshold(50)),
            Views.healthy(3).dbSize(1, 100L << 20, 10L << 20).down(2),
            expect(
                "Defragment",
                new Step.Wait(Names.member(NAME, 2) + " to be healthy and caught up"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/Defragmenting")),
        row(
            "claims asked smaller than they were made: refused, naming the field",
            withMaintenance(3, storage("2Gi")),
            Views.healthy(3).statefulSetClaim(4L << 30).claimsOf(4L << 30, "standard"),
            expect(
                "VolumeSizeRefused",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/VolumeShrinkRefused")),
        row(
            "claims asked larger on a StorageClass without expansion: refused, naming the class",
            withMaintenance(3, storage("8Gi")),
            Views.healthy(3)
                .statefulSetClaim(4L << 30)
                .claimsOf(4L << 30, "standard")
                .storageClass("standard", false),
            expect(
                "VolumeSizeRefused",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/VolumeExpansionRefused")),
        row(
            "claims asked larger: grow the claim of the lowest ordinal first",
            withMaintenance(3, storage("8Gi")),
            Views.healthy(3)
                .statefulSetClaim(4L << 30)
                .claimsOf(4L << 30, "standard")
                .storageClass("standard", true),
            expect(
                "ExpandVolumes",
                new Step.ResizeClaim(0, Names.dataClaim(NAME, 0), "8Gi", "4Gi"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ExpandingVolumes")),
        row(
            "every claim grown: the StatefulSet is recreated, its pods orphaned",
            withMaintenance(3, storage("8Gi")),
            Views.healthy(3)
                .statefulSetClaim(4L << 30)
                .claimsOf(8L << 30, "standard")
                .storageClass("standard", true),
            expect(
                "ExpandVolumes",
                new Step.RecreateStatefulSet(
                    "its claim template asks for 4Gi, the spec for 8Gi, and a claim template"
                        + " cannot be updated"),
                -1,
                EXISTING,
                "True/QuorumHeld",
                "False/ExpandingVolumes")),
        // --- lost nodes: spec.replaceLostMemberAfter (NodeRules) ---
        row(
            "a member's node unreachable past the wait, its volume bound there: removed first",
            waitingFor(3, "10m"),
            Views.healthy(3).down(1).onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                remove(
                    1,
                    "node node-1, to which its volume is bound, has been unreachable for 11m; it"
                        + " comes back as a new member (spec.replaceLostMemberAfter)"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "unreachable for less than the wait: reported, nothing replaced",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .onLostNode(1, "node-1", UNREACHABLE, Duration.ofMinutes(5), "node-1"),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "unreachable past the wait on network storage: the pod cannot move, so it is replaced",
            waitingFor(3, "10m"),
            Views.healthy(3).down(1).onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, null),
            expect(
                "ReplaceMemberOnLostNode",
                remove(
                    1,
                    "its pod is bound to node node-1, unreachable for 11m: the pod stays"
                        + " Terminating there and its StatefulSet starts no other, so its volume"
                        + " cannot follow it; it comes back as a new member"
                        + " (spec.replaceLostMemberAfter)"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "network storage, node unreachable, member removed: its claim goes before its pod",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .notMember(1)
                .onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, null),
            expect(
                "ReplaceMemberOnLostNode",
                new Step.DeleteClaim(
                    1,
                    "data-test-1",
                    "its pod's node node-1 is lost and its member was removed from etcd; the claim"
                        + " holds the former member's data, a new one starts empty"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "a healthy member on a node unreachable past the wait (cut off from the API server"
                + " only): kept",
            waitingFor(3, "10m"),
            Views.healthy(3).onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, null),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "unreachable for less than the wait on network storage: reported, nothing replaced",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .onLostNode(1, "node-1", UNREACHABLE, Duration.ofMinutes(5), null),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "no spec.replaceLostMemberAfter: never replaced automatically",
            target(3),
            Views.healthy(3).down(1).onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1"),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "its node deleted and its pod recreated Pending on a volume of that node: removed",
            waitingFor(3, "10m"),
            Views.healthy(3).down(1).onLostNode(1, null, GONE, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                remove(
                    1,
                    "node node-1, which held its volume, is gone (for 11m); it comes back as a new"
                        + " member (spec.replaceLostMemberAfter)"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "its node drained: the evicted pod waits unscheduled on a volume of the cordoned node"
                + " past the wait: removed",
            waitingFor(3, "10m"),
            Views.healthy(3).down(1).onLostNode(1, null, CORDONED, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                remove(
                    1,
                    "node node-1, to which its volume is bound, is cordoned and its pod has waited"
                        + " unscheduled for 11m; it comes back as a new member"
                        + " (spec.replaceLostMemberAfter)"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "drained for less than the wait: nothing replaced (a maintenance comes back)",
            waitingFor(3, "10m"),
            Views.healthy(3).down(1).onLostNode(1, null, CORDONED, Duration.ofMinutes(5), "node-1"),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "drained, removed from etcd: its claim on the cordoned node goes first",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .notMember(1)
                .onLostNode(1, null, CORDONED, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                new Step.DeleteClaim(
                    1,
                    Names.dataClaim(NAME, 1),
                    "its volume is bound to node node-1, which is cordoned; its member was"
                        + " removed from etcd, a new one starts empty"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "removed from etcd, its claim bound to the lost node: the claim goes first",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .notMember(1)
                .onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                new Step.DeleteClaim(
                    1,
                    Names.dataClaim(NAME, 1),
                    "its volume is bound to node node-1, which is unreachable; its member was"
                        + " removed from etcd, a new one starts empty"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "removed, its claim deleting: its pod on the lost node is deleted forcibly",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .notMember(1)
                .claimTerminating(1)
                .terminating(1)
                .onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1"),
            expect(
                "ReplaceMemberOnLostNode",
                new Step.ForceDeletePod(
                    Names.pod(NAME, 1),
                    "its node node-1 is lost and its member was removed from etcd; a pod on a lost"
                        + " node stays Terminating until deleted forcibly, its kubelet cannot"
                        + " confirm"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MemberNodeLost")),
        row(
            "a member on a lost node of a 2-member cluster: removing it would cost quorum, wait",
            waitingFor(2, "10m"),
            Views.healthy(2).down(1).onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1"),
            expect("QuorumLost", new Step.None(), 2, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "two of three nodes lost: quorum lost, nothing replaced",
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .down(2)
                .noLeader()
                .onLostNode(1, "node-1", UNREACHABLE, ELEVEN_MINUTES, "node-1")
                .onLostNode(2, "node-2", UNREACHABLE, ELEVEN_MINUTES, "node-2"),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "paused: a scale-up waits, status still says what is",
            target(4).withPaused(true),
            Views.healthy(3),
            expect("Paused", new Step.None(), -1, NONE, "True/QuorumHeld", "False/ScalingUp")),
        row(
            "paused while the spec is invalid: the spec's problem is still said",
            Target.invalid(NS, NAME, 7, List.of("spec.replicas: must be >= 0")).withPaused(true),
            Views.healthy(3),
            expect("Paused", new Step.None(), -1, NONE, "True/QuorumHeld", "False/InvalidSpec")),
        row(
            "learner started and healthy: promote",
            target(4),
            Views.healthy(3).learner(3, true),
            expect(
                "PromoteLearner",
                new Step.PromoteLearner(3, "test-3", id(3)),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner added, pod not started: grow the StatefulSet, wait",
            target(4),
            Views.healthy(3).learner(3, false),
            expect(
                "StartLearner",
                new Step.Wait("learner test-3 to start"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner no longer wanted (scaled back before done): remove it",
            target(3),
            Views.healthy(3).learner(3, false),
            expect(
                "UnwantedLearner",
                remove(3, "the spec no longer wants this member"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "scale up 3 -> 5: add the next ordinal as a learner",
            target(5),
            Views.healthy(3),
            expect(
                "ScaleUp",
                new Step.AddLearner(3, "test-3", Names.peerUrl(NS, NAME, 3)),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "scale up onto a claim left by a former member: delete the claim first",
            target(4),
            Views.healthy(3).claim(3),
            expect(
                "ScaleUp",
                new Step.DeleteClaim(
                    3,
                    "data-test-3",
                    "it holds the data of a former member test-3; a new member starts empty"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "replacing a member that lost its data: its crashing pod stays, add the learner first",
            target(4),
            Views.healthy(3)
                .claimTerminating(3)
                .pod(3, true, false)
                .lastTermination(3, "panic: tocommit(31) is out of range [lastIndex(0)]."),
            expect(
                "ScaleUp",
                new Step.AddLearner(3, "test-3", Names.peerUrl(NS, NAME, 3)),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "seed 000 scenario 3: a pod runs on a claim of a member the cluster does not have and"
                + " shows no sign of lost data: delete nothing, add nothing",
            target(4),
            Views.healthy(3).claim(3).pod(3, true, false),
            expect(
                "ScaleUp",
                new Step.Wait(
                    "pod test-3 runs etcd for a member that is not in the cluster and shows no sign"
                        + " of lost data: it may hold the only copy of some data, so the operator"
                        + " neither adds a member there nor deletes its claim"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "seeds 32525, 32621: the pod of a member removed for lost data was replaced before the"
                + " member came back; it runs the removed ID on an empty data dir: add the learner",
            target(4),
            Views.healthy(3).claimOf(3, 0x999, false).pod(3, true, false).answersEmpty(3, 0x999),
            expect(
                "ScaleUp",
                new Step.AddLearner(3, "test-3", Names.peerUrl(NS, NAME, 3)),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "the same, silent on its client port: its metrics say revision 1, add the learner",
            target(4),
            Views.healthy(3).claimOf(3, 0x999, false).pod(3, true, false).onlyMetrics(3, 0, 1),
            expect(
                "ScaleUp",
                new Step.AddLearner(3, "test-3", Names.peerUrl(NS, NAME, 3)),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "silent, with metrics at a later revision: it holds data, keep it",
            target(4),
            Views.healthy(3).claimOf(3, 0x999, false).pod(3, true, false).onlyMetrics(3, 0, 7),
            expect(
                "ScaleUp",
                new Step.Wait(
                    "pod test-3 runs etcd for a member that is not in the cluster and shows no sign"
                        + " of lost data: it may hold the only copy of some data, so the operator"
                        + " neither adds a member there nor deletes its claim"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "then: the learner's pod still runs the removed member on the claim: clear the claim",
            target(4),
            Views.healthy(3)
                .learner(3, false)
                .claimOf(3, 0x999, false)
                .pod(3, true, false)
                .answersEmpty(3, 0x999),
            expect(
                "StartLearner",
                new Step.DeleteClaim(
                    3, "data-test-3", "it holds the data of a former member test-3"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "a pod of a removed member that answers with data is not empty: keep it",
            target(4),
            Views.healthy(3)
                .claimOf(3, 0x999, false)
                .pod(3, true, false)
                .answersEmpty(3, 0x999)
                .raftIndex(3, 402),
            expect(
                "ScaleUp",
                new Step.Wait(
                    "pod test-3 runs etcd for a member that is not in the cluster and shows no sign"
                        + " of lost data: it may hold the only copy of some data, so the operator"
                        + " neither adds a member there nor deletes its claim"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "a learner's pod runs on a former member's claim with no sign of lost data: keep it",
            target(4),
            Views.healthy(3).learner(3, false).claimOf(3, 0x999, false).pod(3, true, false),
            expect(
                "StartLearner",
                new Step.Wait(
                    "pod test-3 runs on the claim of a former member and shows no sign of lost"
                        + " data; the operator will not delete that claim while it runs"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "scale up onto a claim that never held data: just add the learner",
            target(4),
            Views.healthy(3).freshClaim(3),
            expect(
                "ScaleUp",
                new Step.AddLearner(3, "test-3", Names.peerUrl(NS, NAME, 3)),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner added where a former member's claim is: delete the claim",
            target(4),
            Views.healthy(3).learner(3, false).claimOf(3, 0x999, false),
            expect(
                "StartLearner",
                new Step.DeleteClaim(
                    3, "data-test-3", "it holds the data of a former member test-3"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner's pod ran before it was added (a rebuild from test-2) and is backing off:"
                + " delete the pod",
            target(3),
            Views.healthy(3)
                .notMember(0)
                .notMember(1)
                .leader(2)
                .learner(0, false)
                .down(0)
                .lastTermination(
                    0,
                    "2026-11-29 18:54:25.212041 C | etcdmain: couldn't find local name \"test-0\""
                        + " in the initial cluster configuration")
                .down(1)
                .lastTermination(
                    1,
                    "etcdmain: couldn't find local name \"test-1\" in the initial cluster"
                        + " configuration"),
            expect(
                "StartLearner",
                delete(
                    "it started before test-0 was added and waits out a crash back-off; a new pod"
                        + " joins at once",
                    0),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner's pod running: wait for it to start",
            target(3),
            Views.healthy(3).notMember(0).notMember(1).leader(2).learner(0, false).down(1),
            expect(
                "StartLearner",
                new Step.Wait("learner test-0 to start"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner's old claim terminating, a pod still on it: delete the pod",
            target(4),
            Views.healthy(3).learner(3, false).claimOf(3, 0x999, true).pod(3, false, false),
            expect(
                "StartLearner",
                delete("it still uses the claim of a former member", 3),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "learner's old claim going away: wait",
            target(4),
            Views.healthy(3).learner(3, false).claimOf(3, 0x999, true),
            expect(
                "StartLearner",
                new Step.Wait("claim data-test-3 to be deleted"),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "emptyDir learner whose pod crashes on a former member's data: new pod",
            Target.valid(NS, NAME, 7, Views.desired(4, false)),
            Views.healthy(3)
                .statefulSet(3, Views.HASH, false)
                .learner(3, false)
                .pod(3, true, false)
                .down(3),
            expect(
                "StartLearner",
                delete(
                    "its emptyDir still holds a former member's data; a new pod starts empty", 3),
                4,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingUp")),
        row(
            "a member lost its data (raft panic in its last words): remove it",
            target(3),
            Views.healthy(3)
                .down(1)
                .lastTermination(
                    1,
                    "2026-11-29 12:00:00.000000 C | raft: tocommit(9) is out of range [lastIndex(0)]. Was the raft log corrupted, truncated, or lost?\npanic: ..."),
            expect(
                "ReplaceLostMember",
                remove(1, "its pod runs without its data; it comes back as a new member"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "a member refused to bootstrap again: remove it",
            target(3),
            Views.healthy(3)
                .down(2)
                .lastTermination(
                    2, "C | etcdmain: member 8e9e05c52164694d has already been bootstrapped"),
            expect(
                "ReplaceLostMember",
                remove(2, "its pod runs without its data; it comes back as a new member"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "a member that died of something else is left alone",
            target(3),
            Views.healthy(3)
                .down(2)
                .lastTermination(
                    2, "C | etcdmain: listen tcp 0.0.0.0:2379: bind: address already in use"),
            expect(
                "InSync",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MembersUnreachable")),
        row(
            "a member that lost its data, running again and healthy, is not removed",
            target(3),
            Views.healthy(3).lastTermination(1, "raft: tocommit(9) is out of range [lastIndex(0)]"),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "scale down 3 -> 1: remove the highest ordinal",
            target(1),
            Views.healthy(3),
            expect(
                "ScaleDown",
                remove(2, "scaling down to 1"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingDown")),
        row(
            "scale down: the highest ordinal leads: move leadership first",
            target(2),
            Views.healthy(3).leader(2),
            expect("ScaleDown", move(2, 0), 3, EXISTING, "True/QuorumHeld", "False/ScalingDown")),
        row(
            "scale down would cost quorum (another member down): wait",
            target(2),
            Views.healthy(3).down(1),
            expect(
                "ScaleDown",
                new Step.Wait("removing test-2 now would leave the cluster without quorum"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingDown")),
        row(
            "scale down 2 -> 1: etcd allows it",
            target(1),
            Views.healthy(2),
            expect(
                "ScaleDown",
                remove(1, "scaling down to 1"),
                2,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingDown")),
        row(
            "scale down finished: StatefulSet shrinks to the members",
            target(2),
            Views.healthy(3).notMember(2).unreachable(2, "removed"),
            expect(
                "InSync", new Step.None(), 2, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "scaled down, whenScaled Delete: the removed member's claim goes, by the operator",
            Views.deletingScaledDownClaims(2),
            Views.healthy(3).statefulSet(2).notMember(2).noPod(2).noProbe(2),
            expect(
                "DeleteScaledDownClaim",
                new Step.DeleteClaim(
                    2,
                    "data-test-2",
                    "its member was removed in a scale-down and"
                        + " spec.storage.persistentVolumeClaimRetentionPolicy.whenScaled is Delete"),
                2,
                EXISTING,
                "True/QuorumHeld",
                "False/ScalingDown")),
        row(
            "scaled down, whenScaled Retain: the removed member's claim stays",
            target(2),
            Views.healthy(3).statefulSet(2).notMember(2).noPod(2).noProbe(2),
            expect(
                "InSync", new Step.None(), 2, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "scaled down, whenScaled Delete, the pod still there: the claim waits for it",
            Views.deletingScaledDownClaims(2),
            Views.healthy(3).statefulSet(2).notMember(2).down(2),
            expect(
                "InSync", new Step.None(), 2, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "hibernating, whenScaled Delete: every claim stays",
            Views.deletingScaledDownClaims(0),
            Views.healthy(3),
            expect(
                "Hibernate", new Step.None(), 0, EXISTING, "True/QuorumHeld", "False/Hibernated")),
        row(
            "a TLS Secret missing: nothing started, the Secret named",
            Views.secure(3, false),
            Views.fresh()
                .tls(
                    new io.etcdoperator.operator.tls.TlsReport(
                        List.of(
                            new io.etcdoperator.operator.tls.TlsReport.Problem(
                                "peer-tls", null, "not found in namespace default")),
                        List.of(),
                        List.of(),
                        Optional.empty(),
                        "",
                        Optional.empty())),
            expect(
                "TlsNotUsable",
                new Step.Wait("usable TLS Secrets"),
                -1,
                NONE,
                "False/CertificateInvalid",
                "False/CertificateInvalid")),
        row(
            "a renewed certificate that does not match its key: a running cluster is left as it is",
            Views.secure(3, false),
            Views.healthy(3)
                .https()
                .tls(
                    new io.etcdoperator.operator.tls.TlsReport(
                        List.of(
                            new io.etcdoperator.operator.tls.TlsReport.Problem(
                                "server-tls", "tls.key", "is not the key of the certificate")),
                        List.of(),
                        List.of(),
                        Optional.empty(),
                        "",
                        Optional.empty())),
            expect(
                "TlsNotUsable",
                new Step.Wait("usable TLS Secrets"),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/CertificateInvalid")),
        row(
            "the operator's client certificate unusable, no member answers: quorum unknown",
            Views.secure(3, false),
            Views.healthy(3)
                .https()
                .unreachable(0, "UNAVAILABLE: handshake failed")
                .unreachable(1, "UNAVAILABLE: handshake failed")
                .unreachable(2, "UNAVAILABLE: handshake failed")
                .tls(
                    new io.etcdoperator.operator.tls.TlsReport(
                        List.of(
                            new io.etcdoperator.operator.tls.TlsReport.Problem(
                                "client-tls", "tls.crt", "is not signed by the client CA")),
                        List.of(),
                        List.of(),
                        Optional.empty(),
                        "",
                        Optional.empty())),
            expect(
                "TlsNotUsable",
                new Step.Wait("usable TLS Secrets"),
                -1,
                NONE,
                "Unknown/CertificateInvalid",
                "False/CertificateInvalid")),
        row(
            "enableAuth and auth is off: turn it on as the certificate's user",
            Views.secure(3, true),
            Views.healthy(3).https().tls(clientAs("root")).authEnabled(false),
            expect(
                "EnableAuth",
                new Step.EnableAuth("root"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/EnablingAuth")),
        row(
            "enableAuth and auth is on: ready",
            Views.secure(3, true),
            Views.healthy(3).https().tls(clientAs("root")).authEnabled(true),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "enableAuth unset and auth is on: turn it off",
            Views.secure(3, false),
            Views.healthy(3).https().tls(clientAs("root")).authEnabled(true),
            expect(
                "DisableAuth",
                new Step.DisableAuth(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DisablingAuth")),
        row(
            "enableAuth, auth off, quorum lost: nothing until quorum is back",
            Views.secure(3, true),
            Views.healthy(3)
                .https()
                .down(1)
                .down(2)
                .noLeader()
                .tls(clientAs("root"))
                .authEnabled(false),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "TLS asked for a running plaintext cluster: its peers move, the first URL to https"
                + " :2382 (TlsMovesTest has every step)",
            Views.secure(3, false),
            Views.healthy(3).tls(clientAs("root")),
            expect(
                "MovePeers",
                new Step.UpdatePeerUrl(
                    0,
                    Names.member(NAME, 0),
                    id(0),
                    Names.peerUrl(NS, NAME, 0),
                    "https://" + Names.memberHost(NS, NAME, 0) + ":2382"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/MovingToTls")),
        row(
            "TLS removed from a running TLS cluster: refused, nothing touched",
            target(3),
            Views.healthy(3).https(),
            expect(
                "TlsModeChanged",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/TlsModeChanged")),
        row(
            "server TLS removed, its Secrets recorded, authentication on: off first"
                + " (ServerTlsOffTest has the rest)",
            target(3),
            Views.healthy(3)
                .https()
                .tls(clientAs("root"))
                .authEnabled(true)
                .clusterStateAnnotation(Names.SERVER_TLS_ANNOTATION, ServerTlsOffTest.RECORD),
            expect(
                "DisableAuthBeforeServerTlsOff",
                new Step.DisableAuth(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/DisablingAuth")),
        row(
            "roll: a follower first, highest ordinal",
            target(3),
            Views.healthy(3).podWithHash(0, "h0").podWithHash(1, "h0").podWithHash(2, "h0"),
            expect(
                "RollFollower",
                delete("rolling update", 2),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll during a scale-down: a removed member's pod is left to the StatefulSet",
            target(3),
            Views.healthy(4)
                .notMember(3)
                .unreachable(3, "removed")
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0")
                .podWithHash(3, "h0"),
            expect(
                "RollFollower",
                delete("rolling update", 2),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: StatefulSet not yet on the new template: wait for it first",
            target(3),
            Views.healthy(3)
                .statefulSet(3, "h0", true)
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            expect(
                "RollGate",
                new Step.None(),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: the restarted member has not caught up: wait",
            target(3),
            Views.healthy(3)
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .raftIndex(0, 5000)
                .raftIndex(1, 5000)
                .raftIndex(2, 10),
            expect(
                "RollFollower",
                new Step.Wait("test-2 to be healthy and caught up"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: the restarted member is healthy but its pod not Ready yet: wait (clients reach"
                + " members through the Service, which routes to Ready pods only)",
            target(3),
            Views.healthy(3).podWithHash(0, "h0").podWithHash(1, "h0").pod(2, true, false),
            expect(
                "RollFollower",
                new Step.Wait("pod test-2 to be Ready"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: only the leader left, a follower's pod not Ready: wait before moving leadership",
            target(3),
            Views.healthy(3).podWithHash(0, "h0").pod(1, true, false),
            expect(
                "RollFollower",
                new Step.Wait("pod test-1 to be Ready"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: a pod still terminating: wait",
            target(3),
            Views.healthy(3).podWithHash(0, "h0").podWithHash(1, "h0").terminating(2),
            expect(
                "RollGate",
                new Step.Wait("pod test-2 to terminate"),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll: only the leader left: move leadership first",
            target(3),
            Views.healthy(3).podWithHash(0, "h0"),
            expect(
                "RollLeader", move(0, 1), 3, EXISTING, "True/QuorumHeld", "False/RollingUpdate")),
        row(
            "roll: a down member's stale pod goes first",
            target(3),
            Views.healthy(3).podWithHash(0, "h0").podWithHash(1, "h0").podWithHash(2, "h0").down(1),
            expect(
                "RollDownMembers",
                delete("rolling update", 1),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll a 1-member cluster: etcd allows it, status says so",
            target(1),
            Views.healthy(1).podWithHash(0, "h0"),
            expect(
                "RollLeader",
                delete(
                    "rolling update; with 1 voter the cluster has no quorum while test-0 restarts"
                        + " and takes no writes until it is back",
                    0),
                1,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "roll a 2-member cluster: the follower first, status says it costs quorum",
            target(2),
            Views.healthy(2).podWithHash(0, "h0").podWithHash(1, "h0"),
            expect(
                "RollFollower",
                delete(
                    "rolling update; with 2 voters the cluster has no quorum while test-1 restarts"
                        + " and takes no writes until it is back",
                    1),
                2,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "hibernate 3 -> 0: stop every pod, keep membership",
            target(0),
            Views.healthy(3),
            expect(
                "Hibernate", new Step.None(), 0, EXISTING, "True/QuorumHeld", "False/Hibernated")),
        row(
            "hibernated: no pods",
            target(0),
            Views.healthy(3)
                .noPod(0)
                .noPod(1)
                .noPod(2)
                .down(0)
                .down(1)
                .down(2)
                .memberListUnknown()
                .statefulSet(0),
            expect("Hibernated", new Step.None(), 0, NONE, "False/Hibernated", "False/Hibernated")),
        row(
            "waking 0 -> 3: the same members come back",
            target(3),
            Views.healthy(3)
                .noPod(0)
                .noPod(1)
                .noPod(2)
                .down(0)
                .down(1)
                .down(2)
                .memberListUnknown()
                .statefulSet(0),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        // --- quorum lost ---
        row(
            "majority down: wait, destroy nothing",
            target(3),
            Views.healthy(3).down(1).down(2).noLeader(),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "every pod gone: recreate from the recorded member list",
            target(3),
            Views.healthy(3).noPod(0).noPod(1).noPod(2).down(0).down(1).down(2).memberListUnknown(),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "quorum lost while scaling down: never shrink the StatefulSet",
            target(1),
            Views.healthy(3).down(1).down(2).noLeader(),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "quorum lost, StatefulSet shrunk by someone: every known member gets its pod",
            target(3),
            Views.healthy(3).down(1).down(2).noLeader().statefulSet(1),
            expect("QuorumLost", new Step.None(), 3, NONE, "False/QuorumLost", "False/QuorumLost")),
        row(
            "quorum lost after a bad template: replace the stale pods of down members",
            target(3),
            Views.healthy(3).podWithHash(1, "bad").podWithHash(2, "bad").down(1).down(2).noLeader(),
            expect(
                "QuorumLost",
                new Step.DeletePods(List.of("test-1", "test-2"), DOWN_AND_STALE),
                3,
                NONE,
                "False/QuorumLost",
                "False/QuorumLost")),
        // --- the cluster's history comes from the world, not from the operator's ConfigMap ---
        row(
            "quorum held, StatefulSet deleted (orphaning its pods): recreated, nothing else",
            target(3),
            Views.healthy(3).noStatefulSet(),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "majority frozen, ConfigMap deleted, one member answers: quorum lost, the ConfigMap"
                + " written again as existing from the member list",
            target(3),
            Views.healthy(3).noClusterState().frozen(1).frozen(2).noLeader(),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "nothing answers, ConfigMap deleted, the claims are marked: quorum lost, not"
                + " bootstrapping; the ConfigMap written again from the claims",
            target(3),
            Views.healthy(3).noClusterState().down(0).down(1).down(2).memberListUnknown(),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "ConfigMap and StatefulSet with its pods deleted while quorum was lost: the claims say"
                + " which members to bring back",
            target(3),
            Views.healthy(3)
                .noClusterState()
                .noStatefulSet()
                .noPod(0)
                .noPod(1)
                .noPod(2)
                .unreachable(0, "UnknownHost")
                .unreachable(1, "UnknownHost")
                .unreachable(2, "UnknownHost")
                .memberListUnknown(),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "the ConfigMap written back as new by hand, the claims are marked: quorum lost, it"
                + " says existing again",
            target(3),
            Views.healthy(3).clusterState(false, 3).down(0).down(1).down(2).memberListUnknown(),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "emptyDir, ConfigMap deleted while quorum was lost, pods still run etcd: never"
                + " bootstrap new over a running member",
            Target.valid(NS, NAME, 7, Views.desired(3, false)),
            Views.bootstrapping(3)
                .statefulSet(3, Views.HASH, false)
                .noClaim(0)
                .noClaim(1)
                .noClaim(2)
                .noClusterState(),
            expect(
                "QuorumLost",
                new Step.None(),
                3,
                EXISTING,
                "False/QuorumLost",
                "False/QuorumLost")),
        row(
            "emptyDir, every pod and the ConfigMap gone: no data is left anywhere: bootstrap",
            Target.valid(NS, NAME, 7, Views.desired(3, false)),
            Views.fresh().statefulSet(3, Views.HASH, false),
            expect(
                "Bootstrap",
                new Step.None(),
                3,
                NEW,
                "False/Bootstrapping",
                "False/Bootstrapping")),
        row(
            "ConfigMap deleted, the claims record another cluster than the one that answers:"
                + " touch nothing",
            target(3),
            Views.healthy(3)
                .noClusterState()
                .claimOfCluster(0, 0xabc)
                .claimOfCluster(1, 0xabc)
                .claimOfCluster(2, 0xabc),
            expect(
                "AnotherCluster",
                new Step.None(),
                -1,
                NONE,
                "False/SplitBrain",
                "False/SplitBrain")),
        // --- etcd versions ---
        row(
            "upgrade 3.4 -> 3.5: a rolling restart, a follower first",
            target(3, "quay.io/coreos/etcd:v3.5.30"),
            Views.healthy(3)
                .version("3.4.23")
                .clusterVersion("3.4.0")
                .podWithHash(0, "h0")
                .podWithHash(1, "h0")
                .podWithHash(2, "h0"),
            expect(
                "RollFollower",
                delete("rolling update", 2),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        row(
            "upgrade 3.4 -> 3.5 with a schedule naming the cluster: a backup first, the"
                + " StatefulSet left as it is (see ChangeBackupRulesTest)",
            ChangeBackupRulesTest.upgrade(
                ChangeBackupRulesTest.scheduled(
                    io.etcdoperator.operator.model.ChangeBackups.Policy.REQUIRED,
                    java.util.Map.of())),
            ChangeBackupRulesTest.on34(),
            expect(
                "BackupBeforeChange",
                new Step.CreateBackup(
                    ChangeBackupRulesTest.UPGRADE_BACKUP,
                    "nightly",
                    ChangeBackupRulesTest.destination(),
                    "the upgrade to etcd 3.5.30",
                    "upgrade"),
                -1,
                EXISTING,
                "True/QuorumHeld",
                "False/BackingUpBeforeChange")),
        row(
            "upgrade 3.4 -> 3.6 (a valid target: the spec's validation refuses 3.6 before):"
                + " refused, one minor version at a time, nothing touched",
            target(3, "quay.io/coreos/etcd:v3.6.0"),
            Views.healthy(3).version("3.4.23").clusterVersion("3.4.0").podWithHash(0, "h0"),
            expect(
                "UnsupportedVersionChange",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/UnsupportedVersionChange")),
        row(
            "downgrade below the cluster version etcd reports: refused, nothing touched",
            target(3, "registry.k8s.io/etcd:3.4.23-0"),
            Views.healthy(3).clusterVersion("3.5.0").podWithHash(0, "h0"),
            expect(
                "UnsupportedVersionChange",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/UnsupportedVersionChange")),
        row(
            "a cluster that just formed reports etcd's initial cluster version 3.0 until its leader"
                + " raised it: not a version change, nothing refused",
            target(3),
            Views.healthy(3).clusterVersion("3.0.0"),
            expect(
                "InSync", new Step.None(), 3, EXISTING, "True/QuorumHeld", "True/AllMembersReady")),
        row(
            "back to 3.4 in the middle of an upgrade (the cluster version is still 3.4): a roll",
            target(3, "quay.io/coreos/etcd:v3.4.23"),
            Views.healthy(3).clusterVersion("3.4.0").podWithHash(2, "h0"),
            expect(
                "RollFollower",
                delete("rolling update", 2),
                3,
                EXISTING,
                "True/QuorumHeld",
                "False/RollingUpdate")),
        // --- a majority lost its data ---
        row(
            "majority of 5 lost its data: reported, nothing destroyed, no opt-in",
            target(5),
            SurvivorRebuildTest.threeOfFiveWiped(),
            expect(
                "MajorityDataLost",
                new Step.None(),
                5,
                NONE,
                "False/MajorityDataLost",
                "False/MajorityDataLost")),
        row(
            "rebuild opted into, only the survivor's claim left: start the rebuild pod",
            SurvivorRebuildTest.opted(),
            SurvivorRebuildTest.stoppedFrom1().noClaim(0).noClaim(2),
            expect(
                "RebuildUnderWay",
                new Step.CreateRebuildPod(1, "test-1"),
                0,
                NONE,
                "False/Rebuilding",
                "False/Rebuilding")),
        // --- refuse to act ---
        row(
            "split brain: two cluster IDs, touch nothing",
            target(3),
            Views.healthy(3).clusterId(2, 0xbad),
            expect(
                "SplitBrain", new Step.None(), -1, NONE, "False/SplitBrain", "False/SplitBrain")),
        row(
            "members answer for another cluster than the one that formed: touch nothing",
            target(3),
            Views.healthy(3).recordedClusterId(0xabc),
            expect(
                "AnotherCluster",
                new Step.None(),
                -1,
                NONE,
                "False/SplitBrain",
                "False/SplitBrain")),
        row(
            "invalid spec on a healthy cluster: touch nothing, availability still true",
            Target.invalid(NS, NAME, 7, List.of("spec.options.name: set by the operator")),
            Views.healthy(3),
            expect(
                "InvalidSpec", new Step.None(), -1, NONE, "True/QuorumHeld", "False/InvalidSpec")),
        row(
            "a restore from a ReadWriteOnce claim for 3 members, nothing exists: refused,"
                + " nothing created (see RestoreClaimRulesTest)",
            RestoreClaimRulesTest.restoring(3, RestoreClaimRulesTest.claim("ReadWriteOnce")),
            Views.fresh(),
            expect(
                "RestoreClaimUnusable",
                new Step.None(),
                -1,
                NONE,
                "False/RestoreSourceUnusable",
                "False/RestoreSourceUnusable")),
        row(
            "restored on one member from a ReadWriteOnce claim, 3 wanted: no new member's pod",
            RestoreClaimRulesTest.restoring(3, RestoreClaimRulesTest.claim("ReadWriteOnce")),
            Views.healthy(1),
            expect(
                "RestoreClaimHoldsScaleUp",
                new Step.None(),
                1,
                EXISTING,
                "True/QuorumHeld",
                "False/RestoreSourceUnusable")),
        row(
            "invalid spec, nothing exists: create nothing",
            Target.invalid(NS, NAME, 7, List.of("spec.replicas: must be >= 0")),
            Views.fresh(),
            expect(
                "InvalidSpec",
                new Step.None(),
                -1,
                NONE,
                "False/InvalidSpec",
                "False/InvalidSpec")),
        row(
            "storage kind changed: invalid, touch nothing",
            target(3),
            Views.healthy(3).statefulSet(3, Views.HASH, false),
            expect(
                "StorageKindChanged",
                new Step.None(),
                -1,
                NONE,
                "True/QuorumHeld",
                "False/InvalidSpec")));
  }

  @Test
  void aMemberOnALostNodeSaysWhichSinceWhenAndWhatWillBeDone() {
    Plan plan =
        Planner.plan(
            waitingFor(3, "10m"),
            Views.healthy(3)
                .down(1)
                .onLostNode(1, "node-1", UNREACHABLE, Duration.ofMinutes(5), "node-1")
                .build());
    var m = StatusRenderer.render(plan).getMembers().get(1);
    assertThat(m.getNode()).isEqualTo("node-1");
    assertThat(m.getNodeUnreachableSince()).isEqualTo(Views.NOW.minusSeconds(300).toString());
    assertThat(m.getMessage())
        .endsWith(
            "node node-1 is unreachable (for 5m); replaced after spec.replaceLostMemberAfter (10m)"
                + " if its data has not come back");
    Plan never =
        Planner.plan(
            target(3),
            Views.healthy(3)
                .down(1)
                .onLostNode(1, "node-1", UNREACHABLE, Duration.ofMinutes(5), null)
                .build());
    assertThat(StatusRenderer.render(never).getMembers().get(1).getMessage())
        .endsWith(
            "node node-1 is unreachable (for 5m); spec.replaceLostMemberAfter is not set: it is"
                + " never replaced automatically");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(String name, Target target, ClusterView view, Expect expect) {
    Plan plan = Planner.plan(target, view);

    assertThat(plan.rule()).as("rule").isEqualTo(expect.rule());
    assertThat(plan.step()).as("step").isEqualTo(expect.step());
    assertThat(plan.statefulSetReplicas())
        .as("StatefulSet replicas")
        .isEqualTo(
            expect.stsReplicas() < 0 ? OptionalInt.empty() : OptionalInt.of(expect.stsReplicas()));
    String cm = plan.clusterState().map(c -> c.existing() ? EXISTING : NEW).orElse(NONE);
    assertThat(cm).as("cluster-state ConfigMap").isEqualTo(expect.configMap());
    assertThat(condition(plan, Conditions.AVAILABLE)).as("Available").isEqualTo(expect.available());
    assertThat(condition(plan, Conditions.READY)).as("Ready").isEqualTo(expect.ready());
    assertThat(plan.manageObjects())
        .as("Services and budget kept")
        .isEqualTo(
            expect.stsReplicas() >= 0
                || expect.rule().equals("CannotReachMembers")
                || expect.rule().equals("ExpandVolumes")
                || expect.rule().equals("BackupBeforeChange"));
    assertThat(StatusRenderer.render(plan).getObservedGeneration()).isEqualTo(7L);
  }

  static String condition(Plan plan, String type) {
    Condition c =
        StatusRenderer.render(plan).getConditions().stream()
            .filter(x -> x.getType().equals(type))
            .findFirst()
            .orElseThrow();
    return c.getStatus() + "/" + c.getReason();
  }

  static String message(Plan plan, String type) {
    return StatusRenderer.render(plan).getConditions().stream()
        .filter(x -> x.getType().equals(type))
        .findFirst()
        .orElseThrow()
        .getMessage();
  }

  @Test
  void existingConfigMapListsEveryMemberIncludingAnUnstartedLearner() {
    Plan plan = Planner.plan(target(4), Views.healthy(3).learner(3, false).build());
    assertThat(plan.clusterState().orElseThrow().members())
        .extracting(io.etcdoperator.operator.model.InitialMember::name)
        .containsExactly("test-0", "test-1", "test-2", "test-3");
    assertThat(plan.clusterState().orElseThrow().members().get(3).peerUrl())
        .isEqualTo("http://test-3.test-headless.default.svc:2380");
  }

  @Test
  void aLostConfigMapIsWrittenAgainFromTheClaimsWithTheRecordedClusterId() {
    Plan plan =
        Planner.plan(
            target(3),
            Views.healthy(3)
                .noClusterState()
                .noStatefulSet()
                .down(0)
                .down(1)
                .down(2)
                .memberListUnknown()
                .build());
    var state = plan.clusterState().orElseThrow();
    assertThat(state.existing()).isTrue();
    assertThat(state.memberNames()).containsExactly("test-0", "test-1", "test-2");
    assertThat(state.peerUrls().get("test-2"))
        .isEqualTo("http://test-2.test-headless.default.svc:2380");
    assertThat(state.annotations()).containsEntry("etcd.aenix.io/cluster-id", "c1");
    assertThat(message(plan, Conditions.AVAILABLE)).startsWith("quorum lost: no member of 3");
  }

  @Test
  void membersOutOfSightKeepTheServicesThatNameThemAndNothingElse() {
    // The headless Service deleted behind the operator's back: no member name resolves, every pod
    // is still Ready. The Services come back (they destroy nothing); the StatefulSet, the
    // ConfigMap and the claims stay as they are.
    Plan plan =
        Planner.plan(
            target(3),
            Views.healthy(3)
                .unreachable(0, "UNAVAILABLE: Unable to resolve host")
                .unreachable(1, "UNAVAILABLE: Unable to resolve host")
                .unreachable(2, "UNAVAILABLE: Unable to resolve host")
                .build());
    assertThat(plan.rule()).isEqualTo("CannotReachMembers");
    assertThat(plan.manageObjects()).isTrue();
    assertThat(plan.statefulSetReplicas()).isEmpty();
    assertThat(plan.clusterState()).isEmpty();
    assertThat(plan.claimMembers()).isEmpty();
  }

  @Test
  void claimsMarkedBeforeTheClusterIdWasRecordedGetIt() {
    Plan plan = Planner.plan(target(3), Views.healthy(3).claimWithoutClusterId(1).build());
    assertThat(plan.claimMembers()).containsOnlyKeys("data-test-1");
    assertThat(plan.claimClusterId()).isEqualTo(Views.CLUSTER_ID);
  }

  @Test
  void healthyMembersClaimsAreMarkedWithTheirMember() {
    Plan plan =
        Planner.plan(target(3), Views.healthy(3).freshClaim(1).claimOf(2, 0x999, false).build());
    assertThat(plan.claimMembers())
        .containsOnly(
            java.util.Map.entry("data-test-1", id(1)), java.util.Map.entry("data-test-2", id(2)));
    assertThat(Planner.plan(target(3), Views.healthy(3).build()).claimMembers()).isEmpty();
  }

  @Test
  void aMemberThatLostItsDataSaysSoInStatus() {
    Plan plan =
        Planner.plan(
            target(3),
            Views.healthy(3)
                .down(1)
                .lastTermination(
                    1,
                    "raft: tocommit(9) is out of range [lastIndex(0)]. Was the raft log corrupted?")
                .build());
    assertThat(StatusRenderer.render(plan).getMembers().get(1).getMessage())
        .isEqualTo(
            "runs without its data: raft: tocommit(9) is out of range [lastIndex(0)]. Was the raft log corrupted?");
  }

  /**
   * While forming, a member without a pod is "no pod", whatever its address's probe failed with
   * (that varies between reconciles: a status written for nothing).
   */
  @Test
  void aFormingMemberWithoutPodIsNoPodWhateverItsProbeSaid() {
    for (String why : List.of("UnknownHost", "DEADLINE_EXCEEDED")) {
      Plan plan =
          Planner.plan(target(3), Views.bootstrapping(3).noPod(2).unreachable(2, why).build());
      assertThat(StatusRenderer.render(plan).getMembers())
          .extracting(m -> m.getName() + ": " + m.getMessage())
          .containsExactly(
              "test-0: connection refused", "test-1: connection refused", "test-2: no pod");
    }
  }

  @Test
  void quorumLostNamesTheMissingMembers() {
    Plan plan =
        Planner.plan(
            target(3),
            Views.healthy(3).down(1).noPod(2).unreachable(2, "UnknownHost").noLeader().build());
    assertThat(message(plan, Conditions.AVAILABLE))
        .isEqualTo(
            "quorum lost: 0 of 3 voters healthy, 2 needed; missing: test-0 (sees no leader),"
                + " test-1 (connection refused), test-2 (no pod)");
    assertThat(condition(plan, Conditions.DEGRADED)).isEqualTo("True/QuorumLost");
  }

  @Test
  void statusListsMembersWithRolesLeaderAndHealth() {
    Plan plan = Planner.plan(target(4), Views.healthy(3).down(2).learner(3, true).build());
    var members = StatusRenderer.render(plan).getMembers();
    assertThat(members)
        .extracting(m -> m.getName())
        .containsExactly("test-0", "test-1", "test-2", "test-3");
    assertThat(members)
        .extracting(m -> m.getRole())
        .containsExactly("Voter", "Voter", "Voter", "Learner");
    assertThat(members).extracting(m -> m.getLeader()).containsExactly(true, false, false, false);
    assertThat(members).extracting(m -> m.getHealthy()).containsExactly(true, true, false, true);
    assertThat(members.get(2).getMessage()).isEqualTo("connection refused");
    assertThat(members.get(0).getId()).isEqualTo("100");
    assertThat(StatusRenderer.render(plan).getClusterID()).isEqualTo("c1");
    assertThat(StatusRenderer.render(plan).getLeader()).isEqualTo("test-0");
    assertThat(StatusRenderer.render(plan).getReadyMembers()).isEqualTo(2);
    assertThat(StatusRenderer.render(plan).getReplicas()).isEqualTo(4);
  }

  @Test
  void everyPodDeadTurnsAvailableFalse() {
    Plan plan =
        Planner.plan(
            target(3), Views.healthy(3).down(0).down(1).down(2).memberListUnknown().build());
    assertThat(condition(plan, Conditions.AVAILABLE)).isEqualTo("False/QuorumLost");
    assertThat(StatusRenderer.render(plan).getMembers())
        .allSatisfy(m -> assertThat(m.getHealthy()).isFalse());
    assertThat(StatusRenderer.render(plan).getReadyMembers()).isZero();
  }

  @Test
  void rollStuckIsReportedAndTheRollStops() {
    Views view =
        Views.healthy(3)
            .podWithHash(0, "h0")
            .podWithHash(1, "h0")
            .down(2)
            .podCreatedAgo(2, Duration.ofMinutes(10));
    Plan plan = Planner.plan(target(3), view.build());
    assertThat(plan.step()).isEqualTo(new Step.Wait("test-2 to be healthy and caught up"));
    assertThat(condition(plan, Conditions.DEGRADED)).isEqualTo("True/RollStuck");
    assertThat(condition(plan, Conditions.PROGRESSING)).isEqualTo("False/RollStuck");
    assertThat(message(plan, Conditions.DEGRADED))
        .startsWith("rolling update stopped: test-2 was restarted");
  }

  @Test
  void anUpgradeStuckOnACrashingMemberSaysSoAndRestartsNoOther() {
    Views view =
        Views.healthy(3)
            .version("3.4.23")
            .clusterVersion("3.4.0")
            .podWithHash(0, "h0")
            .podWithHash(1, "h0")
            .down(2)
            .podCreatedAgo(2, Duration.ofMinutes(10));
    Plan plan = Planner.plan(Views.target(3, "quay.io/coreos/etcd:v3.5.30"), view.build());
    assertThat(plan.step()).isEqualTo(new Step.Wait("test-2 to be healthy and caught up"));
    assertThat(condition(plan, Conditions.DEGRADED)).isEqualTo("True/UpgradeStuck");
    assertThat(condition(plan, Conditions.PROGRESSING)).isEqualTo("False/UpgradeStuck");
    assertThat(message(plan, Conditions.DEGRADED))
        .startsWith("upgrade to etcd 3.5.30 stopped: test-2 was restarted")
        .contains("Set the image back to the version the other members run to recover it");
  }

  @Test
  void membersOfAnotherClusterThanTheOneThatFormedAreLeftAlone() {
    Plan plan = Planner.plan(target(3), Views.healthy(3).recordedClusterId(0xabc).build());
    assertThat(plan.step()).isEqualTo(new Step.None());
    assertThat(plan.manageObjects()).isFalse();
    assertThat(condition(plan, Conditions.AVAILABLE)).isEqualTo("False/SplitBrain");
    assertThat(message(plan, Conditions.AVAILABLE))
        .startsWith("the members that answer belong to cluster c1, but this cluster formed as abc");
    Plan same =
        Planner.plan(target(3), Views.healthy(3).recordedClusterId(Views.CLUSTER_ID).build());
    assertThat(condition(same, Conditions.READY)).isEqualTo("True/AllMembersReady");
    assertThat(same.clusterState().orElseThrow().annotations())
        .containsEntry("etcd.aenix.io/cluster-id", "c1");
  }

  @Test
  void splitBrainNamesBothClusterIds() {
    Plan plan = Planner.plan(target(3), Views.healthy(3).clusterId(2, 0xbad).build());
    assertThat(message(plan, Conditions.AVAILABLE))
        .isEqualTo(
            "members answer with different cluster IDs (test-0: c1, test-1: c1, test-2: bad); the"
                + " operator changes nothing until a human resolves it");
  }

  @Test
  void readyClusterIsLookedAtLessOften() {
    assertThat(Planner.plan(target(3), Views.healthy(3).build()).requeueAfter())
        .isEqualTo(Planner.READY_RESYNC);
    assertThat(Planner.plan(target(3), Views.healthy(3).down(1).build()).requeueAfter())
        .isEqualTo(Planner.PENDING_RESYNC);
  }

  /**
   * A Ready cluster whose members all run a later minor version than the cluster version is looked
   * at again within seconds: etcd raises the cluster version shortly, and nothing else would wake
   * the operator to show it (an upgrade's last restart, a bootstrap's 3.0).
   */
  @Test
  void readyClusterIsLookedAtSoonWhileEtcdIsToRaiseItsClusterVersion() {
    record Row(String members, String cluster, Duration expected) {}
    for (Row row :
        List.of(
            new Row("3.5.30", "3.5.0", Planner.READY_RESYNC),
            new Row("3.5.30", "3.4.0", Planner.VERSION_RESYNC), // the upgrade's last restart done
            new Row("3.5.30", "3.0.0", Planner.VERSION_RESYNC), // just formed
            new Row("3.4.23", "3.4.0", Planner.READY_RESYNC))) {
      Plan plan =
          Planner.plan(
              target(3),
              Views.healthy(3).version(row.members()).clusterVersion(row.cluster()).build());
      assertThat(plan.rule()).as(row.toString()).isEqualTo("InSync");
      assertThat(plan.requeueAfter()).as(row.toString()).isEqualTo(row.expected());
    }
  }

  /**
   * A Ready cluster is looked at again by the time its defragmentation schedule fires (nothing else
   * wakes it at a time of day), and after the resync when it fires later. Each round of every
   * member was recorded at 12:00:00 UTC ({@link Views#NOW}); the view is taken some seconds later.
   */
  @Test
  void readyClusterIsLookedAtWhenItsDefragmentationScheduleFires() {
    record Row(String schedule, int secondsAfterNoon, Duration expected) {}
    for (Row row :
        List.of(
            new Row("0 * * * *", 45, Planner.READY_RESYNC), // next at 13:00
            new Row("0 0 * * *", 45, Planner.READY_RESYNC), // next at midnight
            new Row("* * * * *", 10, Duration.ofMillis(50_100)), // next at 12:01, 50 s away
            new Row("* * * * *", 45, Duration.ofMillis(15_100)),
            new Row("1 12 * * *", 59, Duration.ofMillis(1_100)))) {
      var d = io.etcdoperator.operator.model.Maintenance.DEFAULTS;
      var policy =
          new io.etcdoperator.operator.model.Maintenance(
              Optional.of(io.etcdoperator.operator.model.Cron.parse(row.schedule())),
              OptionalInt.empty(),
              d.minReclaimable(),
              d.quotaBytes(),
              d.storageBytes(),
              d.storage());
      ClusterView v =
          Views.healthy(3)
              .stateAnnotation(
                  Names.DEFRAGMENTED_ANNOTATION,
                  defragmented(0, 1, 2).replace("2026-11-29T11:59:30Z", "2026-11-29T12:00:00Z"))
              .build();
      ClusterView later =
          new ClusterView(
              v.now().plusSeconds(row.secondsAfterNoon()),
              v.statefulSet(),
              v.pods(),
              v.claims(),
              v.clusterState(),
              v.probes(),
              v.memberList(),
              v.rebuild(),
              v.clusterVersion(),
              v.restore(),
              v.tls(),
              v.authEnabled(),
              v.storageClass(),
              v.placements());
      Plan plan = Planner.plan(withMaintenance(3, policy), later);
      assertThat(plan.rule()).as(row.toString()).isEqualTo("InSync");
      assertThat(plan.requeueAfter()).as(row.toString()).isEqualTo(row.expected());
    }
  }

  /**
   * NOSPACE raised while a member being defragmented does not answer in time (its pod still Ready):
   * CannotReachMembers decides and touches nothing, and Degraded still says NoSpace, so that no
   * SpaceRecovered Event is told while the alarm stands (a full run told it twice).
   */
  @Test
  void degradedSaysNoSpaceWhileTheAlarmIsRaisedWhateverRuleDecides() {
    Plan plan = Planner.plan(target(3), noSpace().unreachable(2, "DEADLINE_EXCEEDED").build());
    assertThat(plan.rule()).isEqualTo("CannotReachMembers");
    assertThat(condition(plan, Conditions.DEGRADED)).isEqualTo("True/NoSpace");
    assertThat(message(plan, Conditions.DEGRADED))
        .startsWith("NOSPACE: etcd refuses writes")
        .contains("the operator cannot reach");
    assertThat(condition(Planner.plan(target(3), Views.healthy(3).build()), Conditions.DEGRADED))
        .isEqualTo("False/AllMembersHealthy");
  }
}
