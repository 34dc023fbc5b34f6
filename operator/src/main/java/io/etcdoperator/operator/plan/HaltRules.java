package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.EtcdVersion;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.ServerTlsRecord;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.MemberProbe;
import io.etcdoperator.operator.observe.PodView;
import io.etcdoperator.operator.observe.StatefulSetView;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.stream.Collectors;

/**
 * The rules that make the operator stand still: they come first, because whatever they find makes
 * every later rule's step unsafe or meaningless.
 */
final class HaltRules {
  private HaltRules() {}

  /**
   * The spec cannot be run (every field and reason, from {@code SpecValidator}): report it and
   * touch nothing. First, because no other rule has a desired state to work towards.
   */
  static final class InvalidSpec implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      return s.target().desired().isPresent()
          ? Optional.empty()
          : Optional.of(Decisions.invalidSpec(s, s.target().problems()));
    }
  }

  /**
   * The Secrets of {@code spec.security.tls} are missing, unreadable or would not work (a key not
   * the certificate's, a CA that does not sign it, a member's name missing, expired): start and
   * change nothing, naming each Secret, key and problem. Members that run keep running with what
   * they loaded; nothing is started that would fail its handshakes, and the operator does not call
   * members with material it cannot use. Right after InvalidSpec: without usable material the
   * operator's view of the members is blind.
   */
  static final class TlsNotUsable implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (s.view().tls().usable()) {
        return Optional.empty();
      }
      String message =
          s.view().tls().invalid().stream().map(Object::toString).collect(Collectors.joining("; "))
              + ". Nothing is started or changed until the Secrets are fixed";
      return Optional.of(Decisions.tlsNotUsable(s, message));
    }
  }

  /**
   * Members answered with more than one cluster ID: touch nothing, not even the StatefulSet, since
   * any change could make it worse. Before any rule that reads "the" cluster ID.
   */
  static final class SplitBrain implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      if (s.facts().clusterIds().size() <= 1) {
        return Optional.empty();
      }
      String message =
          "members answer with different cluster IDs ("
              + s.view().probes().values().stream()
                  .filter(p -> p.reachable() && p.clusterId() != 0)
                  .map(p -> s.pod(p.ordinal()) + ": " + Hex.id(p.clusterId()))
                  .collect(Collectors.joining(", "))
              + "); the operator changes nothing until a human resolves it";
      return Optional.of(Decisions.halt(Conditions.SPLIT_BRAIN, message));
    }
  }

  /**
   * The members that answer belong to a cluster other than the one recorded when quorum was first
   * seen (on the ConfigMap, or on the claims when the ConfigMap is gone): another cluster was
   * started next to this one's data. Touch nothing; a human resolves it.
   */
  static final class AnotherCluster implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      long recorded = s.facts().recordedClusterId();
      long seen = s.facts().clusterId();
      if (recorded == 0 || seen == 0 || recorded == seen) {
        return Optional.empty();
      }
      String message =
          "the members that answer belong to cluster "
              + Hex.id(seen)
              + ", but this cluster formed as "
              + Hex.id(recorded)
              + " (recorded in its cluster-state ConfigMap and on its claims): another cluster was"
              + " started next to"
              + " its data; the operator changes nothing until a human resolves it";
      return Optional.of(Decisions.halt(Conditions.SPLIT_BRAIN, message));
    }
  }

  /**
   * The spec's storage kind differs from the StatefulSet's: members keep their data in the kind
   * they started with, and the claim template is immutable. An invalid spec; touch nothing. The CRD
   * refuses the change at admission; this catches a resource admitted without that rule.
   */
  static final class StorageKindChanged implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<StatefulSetView> sts = s.view().statefulSet();
      if (sts.isEmpty() || sts.get().persistentStorage() == s.desired().persistentStorage()) {
        return Optional.empty();
      }
      return Optional.of(
          Decisions.invalidSpec(
              s,
              List.of(
                  "spec.storage: the storage kind cannot change after creation (the cluster"
                      + " keeps its data in "
                      + (sts.get().persistentStorage() ? "volumeClaimTemplate" : "emptyDir")
                      + ")")));
    }
  }

  /**
   * The image names an etcd version the cluster cannot move to: more than one minor version ahead
   * of the cluster version etcd reports (etcd supports upgrading one minor version at a time), or
   * below it (once every member ran the newer version, etcd raises the cluster version and a member
   * of the older one refuses to start). Touch nothing: the StatefulSet keeps the template the
   * members run. Needs the cluster version a member reported; an image whose tag names no version
   * is not checked.
   */
  static final class UnsupportedVersionChange implements Rule {
    static final String FIELD = "spec.podTemplate.spec.containers[name=etcd].image";

    /**
     * etcd starts a new cluster at its lowest cluster version, 3.0, and its leader raises it to the
     * members' own once it has heard from each (a second or so): a 3.0 seen then says nothing of
     * the cluster, and no member this operator runs (3.4 and later) could join a real 3.0 cluster.
     * Judged as 3.0, a 3.5 image was refused as two minor versions past it while the cluster
     * formed.
     */
    static boolean undecided(EtcdVersion cluster) {
      return cluster.major() == 3 && cluster.minor() == 0;
    }

    @Override
    public Optional<Decision> decide(Situation s) {
      Optional<EtcdVersion> target = s.desired().etcdVersion();
      Optional<EtcdVersion> cluster = s.view().clusterVersion().flatMap(EtcdVersion::parse);
      if (target.isEmpty() || cluster.isEmpty() || undecided(cluster.get())) {
        return Optional.empty();
      }
      int minors = cluster.get().minorsTo(target.get());
      String current = cluster.get().minorVersion();
      String image = s.desired().image();
      String message;
      if (minors > 1) {
        String next = cluster.get().major() + "." + (cluster.get().minor() + 1);
        message =
            FIELD
                + ": "
                + image
                + " is etcd "
                + target.get().minorVersion()
                + ", more than one minor version past the cluster's "
                + current
                + ": etcd upgrades one minor version at a time; set a "
                + next
                + " image first, and the next one once every member runs "
                + next;
      } else if (minors < 0) {
        message =
            FIELD
                + ": "
                + image
                + " is etcd "
                + target.get().minorVersion()
                + ", below the cluster version "
                + current
                + " that etcd reports: once every member ran "
                + current
                + ", etcd does not go back; set a "
                + current
                + " image";
      } else {
        return Optional.empty();
      }
      return Optional.of(Decisions.refused(s, Conditions.UNSUPPORTED_VERSION, message));
    }
  }

  /**
   * A change of TLS the operator cannot carry out safely, refused with nothing touched (the
   * StatefulSet keeps the template the members run):
   *
   * <ul>
   *   <li>Server TLS turned off for a cluster whose pods serve clients over https while the
   *       cluster-state ConfigMap records no server TLS Secrets ({@link ServerTlsRecord}: written
   *       with quorum while the spec names them, so missing only when the spec changed before a
   *       reconcile of this operator version wrote it, or the ConfigMap was lost): during the roll
   *       the operator would have to reach members that still serve https with neither the trust
   *       nor the client certificate the spec no longer names. With the record, the roll goes
   *       ahead, authentication first turned off ({@link AuthRules.DisableAuthBeforeServerTlsOff}).
   *   <li>Peer TLS turned off while the move off it ({@link TlsMoves}) cannot present the peer
   *       certificate the members ran: no StatefulSet or pod names its Secrets, or one of them is
   *       gone (a member restarted on it would not start, and its peers dial it over TLS).
   *   <li>A peer Secret for members that formed on etcd's own peer certificates ({@code
   *       --peer-auto-tls}, aenix's default): a member restarted with it would check its peers'
   *       self-signed certificates against the peer CA and refuse them, and they would refuse its
   *       client certificate, so the roll would stop at the first member. Without a peer Secret
   *       they keep etcd's own ({@link TlsMove#AUTO_TLS}).
   * </ul>
   *
   * Turning peer TLS on or off is otherwise a move the operator carries out ({@link TlsMoves}).
   */
  static final class TlsModeChanged implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      Security security = s.desired().security();
      if (security.peerTlsAsked()) {
        List<String> auto =
            s.view().pods().values().stream()
                .filter(p -> !p.terminating())
                .filter(p -> p.peerCertificate() == PodView.PeerCertificate.AUTO)
                .map(PodView::name)
                .sorted()
                .toList();
        if (!auto.isEmpty()) {
          return Optional.of(
              Decisions.tlsModeChanged(
                  s,
                  "spec.security.tls.peerSecret: "
                      + String.join(", ", auto)
                      + " talk to their peers with certificates etcd made itself (--peer-auto-tls,"
                      + " as aenix's operator runs members), which the peer CA did not sign: a"
                      + " member restarted with the peer Secret would refuse its peers and they it,"
                      + " so moving such a cluster onto a peer CA is not supported; remove"
                      + " spec.security.tls.peerSecret and peerTrustedCASecret to keep the members'"
                      + " own certificates, or create a new cluster with them and move the data"
                      + " with a backup"));
        }
      }
      TlsMove move = s.tlsMove();
      if (move.servesHttps() && !security.peerTlsAsked() && !security.peerTls()) {
        String message =
            security
                .keptPeer()
                .map(
                    kept ->
                        "spec.security.tls: turning peer TLS off takes the members through steps"
                            + " that still present the peer certificate they run, and Secret "
                            + String.join(" and Secret ", kept.missing())
                            + " (mounted by the members for it) does not exist: a member"
                            + " restarted without it would not start; create it again with the"
                            + " certificate the members run, or set spec.security.tls back")
                .orElse(
                    "spec.security.tls: turning peer TLS off takes the members through steps"
                        + " that still present the peer certificate they run, and no StatefulSet"
                        + " or pod of the cluster names its Secret; set"
                        + " spec.security.tls.peerSecret and peerTrustedCASecret back to the"
                        + " Secrets the members ran, and remove them once the cluster is Ready");
        return Optional.of(Decisions.tlsModeChanged(s, message));
      }
      if (security.serverTls()) {
        return Optional.empty();
      }
      // The pods too: over plain http the operator may not reach members that serve https, and
      // then it has no member list to read.
      List<String> https =
          s.view().pods().values().stream()
              .filter(p -> !p.terminating() && p.clientScheme().equals("https"))
              .map(PodView::name)
              .toList();
      boolean recorded =
          s.view()
              .clusterState()
              .flatMap(c -> c.annotation(Names.SERVER_TLS_ANNOTATION))
              .flatMap(ServerTlsRecord::parse)
              .isPresent();
      if (https.isEmpty() || recorded) {
        return Optional.empty();
      }
      String message =
          "spec.security.tls.serverSecret: the spec asks for http for clients, while "
              + String.join(", ", https)
              + " serve clients over https, and the cluster-state ConfigMap "
              + Names.clusterStateConfigMap(s.name())
              + " has no record of the Secrets the operator reaches them with (annotation "
              + Names.SERVER_TLS_ANNOTATION
              + ", written while the spec names them): turning server TLS off now would leave the"
              + " operator unable to reach the members not yet restarted; set"
              + " spec.security.tls back to what the members run, wait for Ready (the record is"
              + " written then), and turn it off again";
      return Optional.of(Decisions.tlsModeChanged(s, message));
    }
  }

  /**
   * A member whose pod is Ready (its kubelet's {@code /health} probe passed) does not answer the
   * operator, and its host does not refuse the connection either: the operator cannot see it, for
   * reasons that say nothing about the member (it runs outside the pod network, a NetworkPolicy or
   * a DNS outage stops it). Report that, naming each address and error, and delete, restart, remove
   * and add nothing until the operator can see the members again: every later rule would take such
   * a member for a dead one. Quorum is reported as the members that do answer see it; when none
   * answers, as Unknown. A member that is really stopped (frozen, on a lost node) looks the same
   * until its kubelet marks the pod not Ready (14 s with the operator's probe). Only members count
   * (by the member list, else by what the world recorded): a pod whose member was removed may stay
   * Ready for a moment, and nothing needs to reach it.
   */
  static final class CannotReachMembers implements Rule {
    @Override
    public Optional<Decision> decide(Situation s) {
      SortedSet<Integer> members = s.facts().knownOrdinals();
      List<MemberProbe> unseen =
          s.view().probes().values().stream()
              .filter(p -> members.contains(p.ordinal()) && s.facts().unseen(p.ordinal()))
              .toList();
      if (unseen.isEmpty()) {
        return Optional.empty();
      }
      String message =
          "the operator cannot reach "
              + unseen.stream()
                  .map(p -> s.pod(p.ordinal()) + " (" + p.endpoint() + ": " + p.error() + ")")
                  .collect(Collectors.joining(", "))
              + (unseen.size() > 1 ? ", whose pods are" : ", whose pod is")
              + " Ready (the kubelet's /health probe passes): it may run outside the pod network,"
              + " or a NetworkPolicy or DNS may stop it; it deletes, restarts, removes and adds"
              + " nothing until it sees them again";
      return Optional.of(Decisions.cannotReach(s, message));
    }
  }
}
