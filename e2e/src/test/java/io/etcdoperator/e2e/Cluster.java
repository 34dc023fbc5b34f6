package io.etcdoperator.e2e;

import static org.awaitility.Awaitility.await;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.EtcdClusterStatus;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdMember;
import io.etcdoperator.operator.etcd.EtcdMemberList;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.testing.RecordingWriter;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * One EtcdCluster of an {@link E2E} session, seen from outside: its spec changed by merge patch (as
 * {@code kubectl patch --type=merge} does), its status, its pods and claims, and its member list
 * read from etcd itself (not from the status the operator writes), so that a test can check the
 * operator's work against the real cluster.
 */
public final class Cluster implements AutoCloseable {
  /** The 3-member cluster "test" in namespace default, with every default. */
  static final String THREE_MEMBERS =
      """
      apiVersion: etcd.aenix.io/v1alpha1
      kind: EtcdCluster
      metadata:
        name: test
        namespace: default
      spec:
        replicas: 3
      """;

  private final E2E e2e;
  private final String name;
  private final JetcdEtcdService etcd =
      new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(Duration.ofSeconds(1)));

  /** The client certificate and trust of a cluster with TLS; empty: plain http. */
  private Optional<io.etcdoperator.operator.tls.ClientTls> tls = Optional.empty();

  public Cluster(E2E e2e, String name) {
    this.e2e = e2e;
    this.name = name;
  }

  /** A cluster whose members serve clients over https and ask for a client certificate. */
  public Cluster(E2E e2e, String name, io.etcdoperator.operator.tls.ClientTls tls) {
    this(e2e, name);
    this.tls = Optional.of(tls);
    etcd.useTls(E2E.NS + "/" + name, this.tls);
  }

  private String scheme() {
    return tls.isPresent() ? "https" : "http";
  }

  /** The sandbox's client (for what a test reads besides this cluster's own objects). */
  io.fabric8.kubernetes.client.KubernetesClient e2eClient() {
    return e2e.client();
  }

  public String name() {
    return name;
  }

  /** Merge-patches {@code spec} with the given JSON object; returns the new generation. */
  public long patchSpec(String specJson) {
    EtcdCluster c =
        e2e.cluster(name)
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":" + specJson + "}");
    return c.getMetadata().getGeneration();
  }

  public long scale(int replicas) {
    return patchSpec("{\"replicas\":" + replicas + "}");
  }

  public EtcdClusterStatus status() {
    return e2e.status(name);
  }

  /** The client Service's URL: the writer's endpoint (resolves to the Ready members). */
  public String clientUrl() {
    return scheme() + "://" + name + "." + E2E.NS + ".svc:" + Names.CLIENT_PORT;
  }

  /** A writer through the client Service, at 50 writes/s, stopping by itself after {@code max}. */
  public RecordingWriter writer(Duration max) {
    RecordingWriter w =
        writerBuilder(tls).maxDuration(max).verifyTimeout(Duration.ofMinutes(1)).start();
    // The Service lists a member once its readiness probe passed: wait for the first write.
    await().atMost(Duration.ofSeconds(30)).until(() -> w.acknowledgedCount() > 0);
    return w;
  }

  /** A writer's builder through the client Service with {@code as} (the cluster's own: TLS). */
  RecordingWriter.Builder writerBuilder(Optional<io.etcdoperator.operator.tls.ClientTls> as) {
    RecordingWriter.Builder b = RecordingWriter.builder(List.of(clientUrl()));
    return as.isPresent() ? b.tls(as.get()) : b;
  }

  /**
   * Waits until the operator has seen generation {@code generation} and the cluster is what it asks
   * for: Ready, exactly the pods {@code <name>-0..n-1} and none terminating, and, in etcd's own
   * member list, exactly {@code n} voters with those names and no learner. Returns how long it
   * took.
   */
  public Duration awaitConverged(long generation, int members, Duration atMost) {
    long start = System.nanoTime();
    try {
      await()
          .atMost(atMost)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> converged(generation, members));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      EtcdClusterStatus s = status();
      throw new AssertionError(
          name
              + " not converged to "
              + members
              + " members at generation "
              + generation
              + " within "
              + atMost
              + ": status "
              + (s == null ? "none" : s.getConditions() + " members " + s.getMembers())
              + "; pods "
              + pods().stream()
                  .map(
                      p ->
                          p.getMetadata().getName()
                              + " "
                              + p.getSpec().getNodeName()
                              + " "
                              + p.getStatus())
                  .toList(),
          e);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** Whether the cluster is now as {@link #awaitConverged} waits for it to be. */
  public boolean converged(long generation, int members) {
    EtcdClusterStatus s = status();
    if (s == null
        || s.getObservedGeneration() == null
        || s.getObservedGeneration() < generation
        || !ready(s, members)) {
      return false;
    }
    List<String> names = IntStream.range(0, members).mapToObj(i -> Names.member(name, i)).toList();
    if (!podNames(false).equals(names) || podNames(true).size() != members) {
      return false;
    }
    if (members == 0) {
      return true;
    }
    return memberList()
        .map(
            l ->
                l.learners().isEmpty()
                    && l.members().stream().map(EtcdMember::name).sorted().toList().equals(names))
        .orElse(false);
  }

  private static boolean ready(EtcdClusterStatus s, int members) {
    String want = members == 0 ? "False" : "True";
    return E2E.condition(s, "Ready").map(c -> want.equals(c.getStatus())).orElse(false)
        && (members > 0
            || E2E.condition(s, "Ready")
                .map(c -> "Hibernated".equals(c.getReason()))
                .orElse(false));
  }

  /** Waits until every pod of the cluster carries annotation {@code key}={@code value}. */
  public void awaitPodsAnnotated(String key, String value, Duration atMost) {
    await()
        .atMost(atMost)
        .until(
            () ->
                pods().stream()
                    .allMatch(
                        p ->
                            p.getMetadata().getAnnotations() != null
                                && value.equals(p.getMetadata().getAnnotations().get(key))));
  }

  /** Names of the cluster's pods, sorted; {@code withTerminating} includes those being deleted. */
  public List<String> podNames(boolean withTerminating) {
    return pods().stream()
        .filter(p -> withTerminating || p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getMetadata().getName())
        .sorted()
        .toList();
  }

  public List<Pod> pods() {
    return e2e.client()
        .pods()
        .inNamespace(E2E.NS)
        .withLabel(Names.LABEL_INSTANCE, name)
        .list()
        .getItems();
  }

  /** The member list as etcd reports it, from the first of the cluster's pods that answers. */
  public Optional<EtcdMemberList> memberList() {
    for (Pod p : pods()) {
      int ordinal = ordinal(p.getMetadata().getName());
      if (ordinal < 0) {
        continue;
      }
      try {
        return Optional.of(
            etcd.memberList(E2E.NS + "/" + name, Names.clientUrl(E2E.NS, name, ordinal, scheme())));
      } catch (EtcdException e) {
        // next pod
      }
    }
    return Optional.empty();
  }

  /** Member name to ID (hex), from etcd's member list; members not started yet are left out. */
  public Map<String, String> memberIds() {
    Map<String, String> ids = new TreeMap<>();
    memberList()
        .orElseThrow(() -> new AssertionError("no member of " + name + " answers"))
        .members()
        .stream()
        .filter(EtcdMember::started)
        .forEach(m -> ids.put(m.name(), m.hexId()));
    return ids;
  }

  /** The name of the member that leads now, as its members report it. */
  public Optional<String> leader() {
    EtcdMemberList list = memberList().orElse(null);
    if (list == null) {
      return Optional.empty();
    }
    for (EtcdMember m : list.members()) {
      if (m.clientUrls().isEmpty()) {
        continue;
      }
      var s = etcd.status(E2E.NS + "/" + name, m.clientUrls().get(0));
      if (s.failure().isEmpty() && s.leaderId() != 0) {
        return list.find(s.leaderId()).map(EtcdMember::name);
      }
    }
    return Optional.empty();
  }

  /**
   * Hands leadership to {@code member} (as an administrator could), so that a test can make the
   * member the operator must remove or restart the leader. Waits until it leads.
   */
  public void moveLeaderTo(String member) {
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(
            () -> {
              EtcdMemberList list = memberList().orElseThrow();
              EtcdMember target =
                  list.members().stream()
                      .filter(m -> member.equals(m.name()))
                      .findFirst()
                      .orElseThrow();
              String leader = leader().orElseThrow();
              if (leader.equals(member)) {
                return true;
              }
              EtcdMember from =
                  list.members().stream()
                      .filter(m -> leader.equals(m.name()))
                      .findFirst()
                      .orElseThrow();
              etcd.moveLeader(
                  E2E.NS + "/" + name, from.clientUrls().get(0), list.clusterId(), target.id());
              return member.equals(leader().orElse(null));
            });
  }

  /** Each started member's hash of its data at {@code revision} (etcd's HashKV), by name. */
  public Map<String, Long> hashes(long revision) {
    Map<String, Long> hashes = new TreeMap<>();
    for (EtcdMember m : memberList().orElseThrow().members()) {
      if (!m.clientUrls().isEmpty()) {
        String url = m.clientUrls().get(0);
        hashes.put(
            m.name(),
            etcd.hashKv(E2E.NS + "/" + name, url, revision, Duration.ofSeconds(10)).hash());
      }
    }
    return hashes;
  }

  /** The cluster ID etcd reports (hex). */
  public String clusterId() {
    return Long.toHexString(
        memberList().orElseThrow(() -> new AssertionError("no member answers")).clusterId());
  }

  /** Claim name to the member ID its annotation names ("" when none), sorted by name. */
  public Map<String, String> claims() {
    Map<String, String> claims = new TreeMap<>();
    for (PersistentVolumeClaim c :
        e2e.client()
            .persistentVolumeClaims()
            .inNamespace(E2E.NS)
            .withLabel(Names.LABEL_INSTANCE, name)
            .list()
            .getItems()) {
      if (c.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      Map<String, String> a = c.getMetadata().getAnnotations();
      String id = a == null ? null : a.get(Names.MEMBER_ID_ANNOTATION);
      claims.put(c.getMetadata().getName(), id == null ? "" : id);
    }
    return claims;
  }

  /** The Events of this cluster, oldest first, as {@code "<type> <reason>: <message>"}. */
  public List<String> events() {
    List<Event> events =
        new ArrayList<>(e2e.client().v1().events().inNamespace(E2E.NS).list().getItems());
    events.removeIf(
        e -> e.getInvolvedObject() == null || !name.equals(e.getInvolvedObject().getName()));
    events.sort(Comparator.comparing(e -> e.getMetadata().getName()));
    return events.stream()
        .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
        .toList();
  }

  private int ordinal(String pod) {
    String prefix = name + "-";
    if (!pod.startsWith(prefix)) {
      return -1;
    }
    try {
      return Integer.parseInt(pod.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    etcd.close();
  }
}
