package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where one pod may go: the default scheduler's filters and a simple score, as a pure function of
 * the pod, the nodes, the pods already bound and the nodes the pod's volumes allow.
 *
 * <p>Filters, per node, in the default scheduler's plugin order; a node fails at the first that
 * refuses it, and that is the reason counted for it in the message:
 *
 * <ol>
 *   <li>NodeUnschedulable: a cordoned node ({@code spec.unschedulable}) unless the pod tolerates
 *       {@code node.kubernetes.io/unschedulable:NoSchedule}: "node(s) were unschedulable";
 *   <li>TaintToleration: the first NoSchedule or NoExecute taint the pod does not tolerate:
 *       "node(s) had untolerated taint {key: value}";
 *   <li>NodeAffinity: {@code nodeSelector} and the required node affinity (terms ORed, expressions
 *       ANDed): "node(s) didn't match Pod's node affinity/selector";
 *   <li>VolumeBinding: a node a bound volume's node affinity excludes: "node(s) had volume node
 *       affinity conflict";
 *   <li>PodTopologySpread, DoNotSchedule constraints: the pods matching the constraint's selector
 *       in the node's domain (the value of its topologyKey label), plus this one, may exceed the
 *       fewest in any eligible domain (nodes that pass the pod's node affinity and have the label)
 *       by at most maxSkew: "node(s) didn't match pod topology spread constraints";
 *   <li>InterPodAffinity: the pod's required affinity terms each need a matching pod in the node's
 *       domain (but the first pod of a group that matches its own term may go anywhere): "node(s)
 *       didn't match pod affinity rules"; its required anti-affinity terms need none: "node(s)
 *       didn't match pod anti-affinity rules"; no pod in the domain may have a required
 *       anti-affinity term matching this pod: "node(s) didn't satisfy existing pods anti-affinity
 *       rules".
 * </ol>
 *
 * <p>Terms match pods of the pod's namespace (or the term's {@code namespaces}) by label selector.
 * Among the nodes left, the best has the highest score (preferred node affinity weights where the
 * node matches; for each preferred pod affinity term, its weight per matching pod in the node's
 * domain; minus the same for preferred anti-affinity), then the fewest pods matching its
 * ScheduleAnyway spread constraints in its domain, then the fewest pods, then the lowest name. When
 * none is left, the message is the real scheduler's: {@code 0/3 nodes are available: 1 node(s) ...,
 * 2 node(s) ....} with the reasons sorted as strings.
 */
public final class Placement {
  static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

  private Placement() {}

  /** The decision: a node, or the message saying why there is none. */
  public record Result(String node, String message) {
    static Result none(String message) {
      return new Result(null, message);
    }
  }

  /**
   * Chooses a node for {@code pod}.
   *
   * @param nodes every node
   * @param bound the pods bound to a node that still count (not finished), this pass's choices
   *     included
   * @param volumeNodes the nodes each bound volume of the pod allows (a list per volume; none: any)
   */
  public static Result place(
      Pod pod, List<Node> nodes, List<Pod> bound, List<List<String>> volumeNodes) {
    Map<String, Node> byName = new HashMap<>();
    nodes.forEach(n -> byName.put(n.getMetadata().getName(), n));
    Map<String, List<Pod>> onNode = new HashMap<>();
    for (Pod p : bound) {
      onNode.computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>()).add(p);
    }
    Map<String, Integer> reasons = new TreeMap<>();
    List<Node> feasible = new ArrayList<>();
    for (Node n : nodes) {
      String reason = refusal(pod, n, nodes, byName, bound, volumeNodes);
      if (reason == null) {
        feasible.add(n);
      } else {
        reasons.merge(reason, 1, Integer::sum);
      }
    }
    if (feasible.isEmpty()) {
      List<String> parts = new ArrayList<>();
      reasons.forEach((r, c) -> parts.add(c + " " + r));
      parts.sort(Comparator.naturalOrder());
      return Result.none(
          "0/"
              + nodes.size()
              + " nodes are available"
              + (parts.isEmpty() ? "" : ": " + String.join(", ", parts))
              + ".");
    }
    Comparator<Node> best =
        Comparator.<Node>comparingLong(n -> -score(pod, n, byName, bound))
            .thenComparingLong(n -> spreadPenalty(pod, n, byName, bound))
            .thenComparingInt(n -> onNode.getOrDefault(n.getMetadata().getName(), List.of()).size())
            .thenComparing(n -> n.getMetadata().getName());
    return new Result(feasible.stream().min(best).orElseThrow().getMetadata().getName(), null);
  }

  /** Why the node cannot take the pod, in the real scheduler's words, or null if it can. */
  static String refusal(
      Pod pod,
      Node node,
      List<Node> nodes,
      Map<String, Node> byName,
      List<Pod> bound,
      List<List<String>> volumeNodes) {
    List<Toleration> tolerations =
        pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    if (node.getSpec() != null
        && Boolean.TRUE.equals(node.getSpec().getUnschedulable())
        && !tolerated(
            new TaintBuilder().withKey(UNSCHEDULABLE_TAINT).withEffect("NoSchedule").build(),
            tolerations)) {
      return "node(s) were unschedulable";
    }
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      for (Taint t : node.getSpec().getTaints()) {
        if (("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
            && !tolerated(t, tolerations)) {
          return "node(s) had untolerated taint {"
              + t.getKey()
              + ": "
              + (t.getValue() == null ? "" : t.getValue())
              + "}";
        }
      }
    }
    if (!nodeAffinityMatches(pod, node)) {
      return "node(s) didn't match Pod's node affinity/selector";
    }
    for (List<String> allowed : volumeNodes) {
      if (!allowed.contains(node.getMetadata().getName())) {
        return "node(s) had volume node affinity conflict";
      }
    }
    if (!spreadSatisfied(pod, node, nodes, byName, bound)) {
      return "node(s) didn't match pod topology spread constraints";
    }
    Affinity a = pod.getSpec().getAffinity();
    if (a != null
        && a.getPodAffinity() != null
        && a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      for (PodAffinityTerm term :
          a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()) {
        if (matchingInDomain(pod, term, node, byName, bound) == 0
            && !(Selectors.matches(term.getLabelSelector(), pod.getMetadata().getLabels())
                && noneAnywhere(pod, term, bound)
                && label(node, term.getTopologyKey()) != null)) {
          return "node(s) didn't match pod affinity rules";
        }
      }
    }
    if (a != null
        && a.getPodAntiAffinity() != null
        && a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      for (PodAffinityTerm term :
          a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()) {
        if (matchingInDomain(pod, term, node, byName, bound) > 0) {
          return "node(s) didn't match pod anti-affinity rules";
        }
      }
    }
    for (Pod other : bound) {
      Affinity oa = other.getSpec().getAffinity();
      if (oa == null
          || oa.getPodAntiAffinity() == null
          || oa.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
        continue;
      }
      Node otherNode = byName.get(other.getSpec().getNodeName());
      for (PodAffinityTerm term :
          oa.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()) {
        String domain = label(node, term.getTopologyKey());
        if (domain != null
            && otherNode != null
            && domain.equals(label(otherNode, term.getTopologyKey()))
            && namespaces(other, term).contains(pod.getMetadata().getNamespace())
            && Selectors.matches(term.getLabelSelector(), pod.getMetadata().getLabels())) {
          return "node(s) didn't satisfy existing pods anti-affinity rules";
        }
      }
    }
    return null;
  }

  /** Whether a toleration of the pod tolerates the taint (key, operator Equal/Exists, effect). */
  public static boolean tolerated(Taint taint, List<Toleration> tolerations) {
    return toleration(taint, tolerations) != null;
  }

  /** The first toleration of the list that tolerates the taint, or null. */
  public static Toleration toleration(Taint taint, List<Toleration> tolerations) {
    for (Toleration t : tolerations == null ? List.<Toleration>of() : tolerations) {
      if (t.getEffect() != null
          && !t.getEffect().isEmpty()
          && !t.getEffect().equals(taint.getEffect())) {
        continue;
      }
      String op = t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
      if (t.getKey() == null || t.getKey().isEmpty()) {
        if (op.equals("Exists")) {
          return t;
        }
        continue;
      }
      if (!t.getKey().equals(taint.getKey())) {
        continue;
      }
      if (op.equals("Exists")
          || op.equals("Equal")
              && Objects.equals(
                  t.getValue() == null ? "" : t.getValue(),
                  taint.getValue() == null ? "" : taint.getValue())) {
        return t;
      }
    }
    return null;
  }

  static boolean nodeAffinityMatches(Pod pod, Node node) {
    Map<String, String> labels = labels(node);
    if (pod.getSpec().getNodeSelector() != null) {
      for (Map.Entry<String, String> e : pod.getSpec().getNodeSelector().entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    Affinity a = pod.getSpec().getAffinity();
    if (a == null
        || a.getNodeAffinity() == null
        || a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return true;
    }
    List<NodeSelectorTerm> terms =
        a.getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    if (terms == null || terms.isEmpty()) {
      return false;
    }
    for (NodeSelectorTerm term : terms) {
      if (termMatches(term, node)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a node selector term (expressions on labels, fields on metadata.name) selects it. */
  public static boolean termMatchesNode(NodeSelectorTerm term, Node node) {
    return termMatches(term, node);
  }

  private static boolean termMatches(NodeSelectorTerm term, Node node) {
    boolean any = false;
    if (term.getMatchExpressions() != null) {
      for (NodeSelectorRequirement r : term.getMatchExpressions()) {
        any = true;
        if (!Selectors.matches(r, labels(node))) {
          return false;
        }
      }
    }
    if (term.getMatchFields() != null) {
      for (NodeSelectorRequirement r : term.getMatchFields()) {
        any = true;
        if (!"metadata.name".equals(r.getKey())
            || !Selectors.matches(
                new NodeSelectorRequirement(r.getKey(), r.getOperator(), r.getValues()),
                Map.of("metadata.name", node.getMetadata().getName()))) {
          return false;
        }
      }
    }
    // an empty term matches no node, as in the API
    return any;
  }

  private static boolean spreadSatisfied(
      Pod pod, Node node, List<Node> nodes, Map<String, Node> byName, List<Pod> bound) {
    for (TopologySpreadConstraint c : constraints(pod, "DoNotSchedule")) {
      String domain = label(node, c.getTopologyKey());
      if (domain == null) {
        return false;
      }
      Map<String, Integer> counts = domainCounts(pod, c, nodes, byName, bound);
      int min = counts.values().stream().min(Integer::compare).orElse(0);
      int skew = counts.getOrDefault(domain, 0) + 1 - min;
      if (skew > (c.getMaxSkew() == null ? 1 : c.getMaxSkew())) {
        return false;
      }
    }
    return true;
  }

  /** Matching pods per domain, over the domains of the nodes that pass the pod's node affinity. */
  private static Map<String, Integer> domainCounts(
      Pod pod,
      TopologySpreadConstraint c,
      List<Node> nodes,
      Map<String, Node> byName,
      List<Pod> bound) {
    Map<String, Integer> counts = new HashMap<>();
    for (Node n : nodes) {
      String d = label(n, c.getTopologyKey());
      if (d != null && nodeAffinityMatches(pod, n)) {
        counts.putIfAbsent(d, 0);
      }
    }
    for (Pod p : bound) {
      Node n = byName.get(p.getSpec().getNodeName());
      String d = n == null ? null : label(n, c.getTopologyKey());
      if (d != null
          && counts.containsKey(d)
          && p.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())
          && Selectors.matches(c.getLabelSelector(), p.getMetadata().getLabels())) {
        counts.merge(d, 1, Integer::sum);
      }
    }
    return counts;
  }

  private static long spreadPenalty(Pod pod, Node node, Map<String, Node> byName, List<Pod> bound) {
    long penalty = 0;
    for (TopologySpreadConstraint c : constraints(pod, "ScheduleAnyway")) {
      String domain = label(node, c.getTopologyKey());
      for (Pod p : bound) {
        Node n = byName.get(p.getSpec().getNodeName());
        if (domain != null
            && n != null
            && domain.equals(label(n, c.getTopologyKey()))
            && p.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())
            && Selectors.matches(c.getLabelSelector(), p.getMetadata().getLabels())) {
          penalty++;
        }
      }
    }
    return penalty;
  }

  private static List<TopologySpreadConstraint> constraints(Pod pod, String when) {
    List<TopologySpreadConstraint> out = new ArrayList<>();
    if (pod.getSpec().getTopologySpreadConstraints() != null) {
      for (TopologySpreadConstraint c : pod.getSpec().getTopologySpreadConstraints()) {
        if (when.equals(
            c.getWhenUnsatisfiable() == null ? "DoNotSchedule" : c.getWhenUnsatisfiable())) {
          out.add(c);
        }
      }
    }
    return out;
  }

  private static long score(Pod pod, Node node, Map<String, Node> byName, List<Pod> bound) {
    long score = 0;
    Affinity a = pod.getSpec().getAffinity();
    if (a == null) {
      return 0;
    }
    if (a.getNodeAffinity() != null
        && a.getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution() != null) {
      for (PreferredSchedulingTerm t :
          a.getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()) {
        if (t.getPreference() != null && termMatches(t.getPreference(), node)) {
          score += t.getWeight() == null ? 0 : t.getWeight();
        }
      }
    }
    if (a.getPodAffinity() != null
        && a.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution() != null) {
      for (WeightedPodAffinityTerm t :
          a.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()) {
        score +=
            (long) weight(t) * matchingInDomain(pod, t.getPodAffinityTerm(), node, byName, bound);
      }
    }
    if (a.getPodAntiAffinity() != null
        && a.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution() != null) {
      for (WeightedPodAffinityTerm t :
          a.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()) {
        score -=
            (long) weight(t) * matchingInDomain(pod, t.getPodAffinityTerm(), node, byName, bound);
      }
    }
    return score;
  }

  private static int weight(WeightedPodAffinityTerm t) {
    return t.getWeight() == null ? 0 : t.getWeight();
  }

  /** How many bound pods the term selects in the node's domain of the term's topology key. */
  private static int matchingInDomain(
      Pod pod, PodAffinityTerm term, Node node, Map<String, Node> byName, List<Pod> bound) {
    if (term == null) {
      return 0;
    }
    String domain = label(node, term.getTopologyKey());
    if (domain == null) {
      return 0;
    }
    List<String> namespaces = namespaces(pod, term);
    int count = 0;
    for (Pod p : bound) {
      Node n = byName.get(p.getSpec().getNodeName());
      if (n != null
          && domain.equals(label(n, term.getTopologyKey()))
          && namespaces.contains(p.getMetadata().getNamespace())
          && Selectors.matches(term.getLabelSelector(), p.getMetadata().getLabels())) {
        count++;
      }
    }
    return count;
  }

  private static boolean noneAnywhere(Pod pod, PodAffinityTerm term, List<Pod> bound) {
    List<String> namespaces = namespaces(pod, term);
    for (Pod p : bound) {
      if (namespaces.contains(p.getMetadata().getNamespace())
          && Selectors.matches(term.getLabelSelector(), p.getMetadata().getLabels())) {
        return false;
      }
    }
    return true;
  }

  private static List<String> namespaces(Pod owner, PodAffinityTerm term) {
    return term.getNamespaces() == null || term.getNamespaces().isEmpty()
        ? List.of(owner.getMetadata().getNamespace())
        : term.getNamespaces();
  }

  private static Map<String, String> labels(Node node) {
    return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
  }

  private static String label(Node node, String key) {
    return key == null ? null : labels(node).get(key);
  }
}
