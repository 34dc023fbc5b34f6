package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.model.Target.Desired;
import io.etcdoperator.operator.model.TlsMove;
import io.etcdoperator.operator.observe.ClusterView;
import java.util.ArrayList;
import java.util.List;

/**
 * What every rule reads: what the user asked for and the facts of one observation.
 *
 * @param target what the user asked for
 * @param facts what was seen, derived once
 */
record Situation(Target target, Facts facts) {
  /** The scheme of new members' peer URLs: https with peer TLS. */
  String peerScheme() {
    return target.desired().map(d -> d.security().peerScheme()).orElse("http");
  }

  /** Where the cluster stands on its way to peer TLS ({@link TlsMoves}). */
  TlsMove tlsMove() {
    return TlsMoves.of(target, facts);
  }

  /** The resolved spec; every rule after the invalid-spec rule may rely on it. */
  Desired desired() {
    return target.desired().orElseThrow();
  }

  ClusterView view() {
    return facts.view();
  }

  String name() {
    return target.name();
  }

  String namespace() {
    return target.namespace();
  }

  String pod(int ordinal) {
    return Names.pod(target.name(), ordinal);
  }

  List<String> pods(Iterable<Integer> ordinals) {
    List<String> names = new ArrayList<>();
    ordinals.forEach(i -> names.add(pod(i)));
    return names;
  }

  /** The StatefulSet already carries the desired template, so recreated pods get it. */
  boolean templateRolledOut() {
    return facts
        .view()
        .statefulSet()
        .map(s -> desired().podTemplateHash().equals(s.podTemplateHash()))
        .orElse(false);
  }

  /** A cluster on claims asked to scale to 0: every member stops, the data stays. */
  boolean hibernating() {
    return desired().replicas() == 0 && desired().persistentStorage();
  }
}
