package io.etcdoperator.sandbox.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.operator.etcd.ClusterProbe;
import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdMember;
import io.etcdoperator.operator.etcd.EtcdMemberList;
import io.etcdoperator.operator.etcd.EtcdProbe;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.EtcdStatus;
import io.etcdoperator.operator.etcd.Health;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.etcd.Progress;
import io.etcdoperator.sandbox.fake.FakeEtcd.Member;
import io.etcdoperator.sandbox.net.AddressPool;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link FakeEtcd} as the operator's own etcd client code sees it. */
class FakeEtcdTest {
  private static final Duration DEADLINE = Duration.ofSeconds(1);
  private static final String KEY = "default/test";
  private static final BooleanSupplier NEVER = () -> false;

  private static AddressPool pool;
  private static JetcdEtcdService etcd;
  private static EtcdHttp etcdHttp;
  private static HttpClient http;

  private final List<String> addresses = new ArrayList<>();
  private FakeEtcd fake;

  /** A member's pod: its address and the etcd command line and environment it runs. */
  private record Pod(String name, String ip, List<String> argv, Map<String, String> env) {
    String clientUrl() {
      return "http://" + ip + ":2379";
    }

    String metricsUrl() {
      return "http://" + ip + ":2381";
    }
  }

  @BeforeAll
  static void clients() {
    pool = new AddressPool(AddressPool.defaultLockDir(), List.of(2379, 2380, 2381));
    etcd = new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(DEADLINE));
    etcdHttp = new EtcdHttp(DEADLINE);
    http = HttpClient.newBuilder().connectTimeout(DEADLINE).build();
  }

  @AfterAll
  static void closeClients() {
    etcd.close();
    pool.close();
  }

  @BeforeEach
  void startFake() {
    fake = new FakeEtcd();
  }

  @AfterEach
  void closeFake() {
    fake.close();
    etcd.closeCluster(KEY);
    addresses.forEach(pool::release);
  }

  @Test
  void oneMemberAnswersWhatTheOperatorAsks() throws Exception {
    Pod pod = pods("solo", 1).get(0);
    Member member = fake.start(pod.argv(), pod.env(), NEVER);
    assertThat(fake.members()).isEqualTo(1);

    ClusterProbe probe = etcd.probeAll(KEY, List.of(pod.clientUrl()));
    EtcdStatus status = probe.members().get(0).status();
    assertThat(status.failure()).isEmpty();
    assertThat(status.memberId()).isEqualTo(member.id());
    assertThat(status.leaderId()).isEqualTo(member.id());
    assertThat(status.clusterId()).isEqualTo(member.clusterId());
    assertThat(status.version()).isEqualTo("3.5.30");
    assertThat(status.raftTerm()).isEqualTo(2);
    assertThat(status.raftIndex()).isPositive().isEqualTo(status.raftAppliedIndex());
    assertThat(status.dbSize()).isEqualTo(20480);
    assertThat(status.dbSizeInUse()).isEqualTo(16384);
    assertThat(status.learner()).isFalse();
    assertThat(status.errors()).isEmpty();
    assertThat(probe.hasQuorum()).isTrue();
    EtcdMemberList list = probe.memberList().orElseThrow();
    assertThat(list.clusterId()).isEqualTo(member.clusterId());
    assertThat(list.members())
        .containsExactly(
            new EtcdMember(
                member.id(),
                "solo-0",
                List.of("http://solo-0.solo-headless.default.svc:2380"),
                List.of("http://solo-0.solo-headless.default.svc:2379"),
                false));

    assertThat(etcd.alarms(KEY, pod.clientUrl())).isEmpty();
    Health health = etcd.health(KEY, pod.clientUrl());
    assertThat(health.problem()).isEmpty();
    assertThat(health.healthy()).isTrue();
    assertThat(etcd.authEnabled(KEY, pod.clientUrl())).isFalse();
    // A call the fake does not serve is, to the operator, an etcd without it: expected, typed.
    assertThatThrownBy(() -> etcd.moveLeader(KEY, pod.clientUrl(), member.clusterId(), 1))
        .isInstanceOfSatisfying(
            EtcdException.class, e -> assertThat(e.failure()).isEqualTo(EtcdFailure.UNIMPLEMENTED));

    assertThat(etcdHttp.versions(pod.clientUrl()))
        .contains(new EtcdHttp.Versions("3.5.30", "3.5.0"));
    assertThat(etcdHttp.progress(List.of(pod.metricsUrl())))
        .containsEntry(pod.metricsUrl(), new EtcdHttp.Progress(12, 12, true, FakeEtcd.REVISION));
    assertThat(get(pod.metricsUrl() + "/health?exclude=NOSPACE", HttpClient.Version.HTTP_2))
        .isEqualTo("200 {\"health\":\"true\",\"reason\":\"\"}");
    assertThat(get(pod.metricsUrl() + "/livez", HttpClient.Version.HTTP_2)).isEqualTo("200 ok");
    // the kubelet's liveness probe: /version on the peer port, over HTTP/1.1
    assertThat(get("http://" + pod.ip() + ":2380/version", HttpClient.Version.HTTP_1_1))
        .startsWith("200 {\"etcdserver\":\"3.5.30\"");
    assertThat(get(pod.clientUrl() + "/nothing", HttpClient.Version.HTTP_1_1)).startsWith("404 ");
  }

  @Test
  void threeMembersAgreeLoseQuorumAndRegainIt() throws Exception {
    List<Pod> pods = pods("trio", 3);
    List<Member> members = new ArrayList<>();
    // Alone, a member has not joined a cluster with a leader: as etcd, it serves no client.
    members.add(fake.start(pods.get(0).argv(), pods.get(0).env(), NEVER));
    assertThat(etcd.status(KEY, pods.get(0).clientUrl()).failure().orElseThrow().failure())
        .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
    assertThat(etcdHttp.progress(List.of(pods.get(0).metricsUrl())))
        .containsEntry(
            pods.get(0).metricsUrl(), new EtcdHttp.Progress(12, 12, false, FakeEtcd.REVISION));
    for (Pod pod : pods.subList(1, 3)) {
      members.add(fake.start(pod.argv(), pod.env(), NEVER));
    }
    List<String> urls = pods.stream().map(Pod::clientUrl).toList();
    int leader = smallestId(members);
    long clusterId = members.get(0).clusterId();
    assertThat(members).extracting(Member::id).doesNotHaveDuplicates();

    ClusterProbe probe = etcd.probeAll(KEY, urls);
    assertThat(probe.members())
        .allSatisfy(
            p -> {
              assertThat(p.status().failure()).isEmpty();
              assertThat(p.status().leaderId()).isEqualTo(members.get(leader).id());
              assertThat(p.status().clusterId()).isEqualTo(clusterId);
            });
    assertThat(probe.hasQuorum()).isTrue();
    assertThat(probe.memberList().orElseThrow().members())
        .extracting(EtcdMember::name)
        .containsExactlyInAnyOrder("trio-0", "trio-1", "trio-2");

    // The leader and one more go: the last one has no leader, and says so.
    int survivor = leader == 2 ? 1 : 2;
    int other = 3 - leader - survivor;
    members.get(leader).stop();
    members.get(other).stop();
    members.get(other).stop(); // idempotent
    assertThat(fake.members()).isEqualTo(1);
    String survivorUrl = pods.get(survivor).clientUrl();
    EtcdStatus alone = etcd.status(KEY, survivorUrl);
    assertThat(alone.failure()).isEmpty();
    assertThat(alone.leaderId()).isZero();
    assertThat(alone.raftTerm()).isGreaterThan(2);
    assertThat(get(pods.get(survivor).metricsUrl() + "/health", HttpClient.Version.HTTP_2))
        .isEqualTo("503 {\"health\":\"false\",\"reason\":\"RAFT NO LEADER\"}");
    assertThat(etcd.health(KEY, survivorUrl).problem().orElseThrow().failure())
        .isEqualTo(EtcdFailure.REJECTED);
    assertThat(etcd.memberList(KEY, survivorUrl).members()).hasSize(3);
    assertThat(etcdHttp.progress(List.of(pods.get(survivor).metricsUrl())).values())
        .allSatisfy(p -> assertThat(p.hasLeader()).isFalse());

    // A stopped member refuses connections, at once.
    long start = System.nanoTime();
    EtcdStatus dead = etcd.status(KEY, pods.get(other).clientUrl());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(dead.failure().orElseThrow().refused()).as(dead.toString()).isTrue();
    assertThat(took).isLessThan(DEADLINE.dividedBy(2));

    // The leader comes back with the same flags: same IDs, a leader again, a new term.
    Pod back = pods.get(leader);
    Member restarted = fake.start(back.argv(), back.env(), NEVER);
    assertThat(restarted.id()).isEqualTo(members.get(leader).id());
    assertThat(restarted.clusterId()).isEqualTo(clusterId);
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              ClusterProbe again =
                  etcd.probeAll(KEY, List.of(back.clientUrl(), pods.get(survivor).clientUrl()));
              assertThat(again.members())
                  .allSatisfy(
                      p -> {
                        assertThat(p.status().leaderId()).isEqualTo(restarted.id());
                        assertThat(p.status().raftTerm()).isGreaterThan(alone.raftTerm());
                      });
            });
  }

  @Test
  void aFrozenMemberAnswersNothingWhileTheOthersDo() throws Exception {
    List<Pod> pods = pods("icy", 3);
    AtomicBoolean frozen = new AtomicBoolean();
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      members.add(fake.start(pods.get(i).argv(), pods.get(i).env(), i == 0 ? frozen::get : NEVER));
    }
    List<String> urls = pods.stream().map(Pod::clientUrl).toList();
    assertThat(etcd.probeAll(KEY, urls).reachable()).hasSize(3);
    List<Progress> progress = etcd.progress(KEY, urls, DEADLINE).get(5, TimeUnit.SECONDS);
    for (int i = 0; i < 3; i++) {
      assertThat(progress.get(i))
          .isEqualTo(
              new Progress(
                  true, members.get(i).clusterId(), members.get(i).id(), 2, FakeEtcd.REVISION));
    }

    frozen.set(true);
    progress = etcd.progress(KEY, urls, DEADLINE).get(5, TimeUnit.SECONDS);
    assertThat(progress.get(0)).isEqualTo(Progress.NONE);
    assertThat(progress.subList(1, 3)).allSatisfy(p -> assertThat(p.answered()).isTrue());
    ClusterProbe probe = etcd.probeAll(KEY, urls);
    EtcdProbe icy = probe.members().get(0);
    assertThat(icy.status().failure().orElseThrow().failure())
        .isEqualTo(EtcdFailure.DEADLINE_EXCEEDED);
    assertThat(probe.took()).isGreaterThanOrEqualTo(DEADLINE.multipliedBy(9).dividedBy(10));
    // the two others still make a quorum, led by the smaller ID of theirs
    long leader = members.get(smallestId(members.subList(1, 3)) + 1).id();
    assertThat(probe.members().subList(1, 3))
        .allSatisfy(p -> assertThat(p.status().leaderId()).isEqualTo(leader));
    assertThat(probe.hasQuorum()).isTrue();
    assertThat(etcdHttp.progress(List.of(pods.get(0).metricsUrl()))).isEmpty();

    frozen.set(false);
    assertThat(etcd.status(KEY, urls.get(0)).failure()).isEmpty();
    // one stream per member all along, and one more for the member whose request went unanswered
    progress = etcd.progress(KEY, urls, DEADLINE).get(5, TimeUnit.SECONDS);
    assertThat(progress.get(0).answered()).isTrue();
    for (int i = 0; i < 5; i++) {
      assertThat(etcd.progress(KEY, urls, DEADLINE).get(5, TimeUnit.SECONDS))
          .allSatisfy(p -> assertThat(p.answered()).isTrue());
    }
    assertThat(fake.watchStreams()).isEqualTo(4);
  }

  @Test
  void readsFlagsInEitherFormAndFromTheEnvironment() throws Exception {
    Pod pod = pods("env", 1).get(0);
    Member usual = fake.start(pod.argv(), pod.env(), NEVER);
    long id = usual.id();
    long clusterId = usual.clusterId();
    usual.stop();
    assertThat(fake.members()).isZero();

    Map<String, String> env = new HashMap<>(pod.env());
    env.put("ETCD_NAME", "not-this-one");
    env.put("ETCD_LISTEN_METRICS_URLS", pod.metricsUrl());
    env.put("ETCD_LISTEN_PEER_URLS", "http://" + pod.ip() + ":2380");
    env.put("ETCD_INITIAL_ADVERTISE_PEER_URLS", "http://env-0.env-headless.default.svc:2380");
    env.put("ETCD_ADVERTISE_CLIENT_URLS", "http://env-0.env-headless.default.svc:2379");
    List<String> argv =
        List.of(
            "etcd",
            "--name",
            "env-0",
            "-listen-client-urls",
            pod.clientUrl(),
            "--enable-pprof",
            "--data-dir",
            "/var/run/etcd/default.etcd");
    Member fromEnv = fake.start(argv, env, NEVER);
    assertThat(fromEnv.name()).isEqualTo("env-0");
    assertThat(fromEnv.id()).isEqualTo(id);
    assertThat(fromEnv.clusterId()).isEqualTo(clusterId);
    assertThat(etcd.status(KEY, pod.clientUrl()).memberId()).isEqualTo(id);
    assertThat(etcdHttp.progress(List.of(pod.metricsUrl()))).hasSize(1);
  }

  @Test
  void refusesToStartWhereEtcdWouldNot() throws Exception {
    Pod pod = pods("bad", 1).get(0);
    List<String> tls = new ArrayList<>(pod.argv());
    tls.replaceAll(a -> a.startsWith("--listen-client-urls=") ? a.replace("http:", "https:") : a);
    assertThatThrownBy(() -> fake.start(tls, pod.env(), NEVER))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("https://" + pod.ip() + ":2379");

    List<String> stranger = new ArrayList<>(pod.argv());
    stranger.replaceAll(a -> a.startsWith("--name=") ? "--name=bad-9" : a);
    assertThatThrownBy(() -> fake.start(stranger, pod.env(), NEVER))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("bad-9");

    fake.start(pod.argv(), pod.env(), NEVER);
    assertThatThrownBy(() -> fake.start(pod.argv(), pod.env(), NEVER))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("address already in use");
    assertThat(fake.members()).isEqualTo(1);
    assertThat(etcd.status(KEY, pod.clientUrl()).failure()).isEmpty();
  }

  @Test
  void idsAreThoseEtcdComputes() {
    // as etcd 3.5.30 reported them for this initial cluster and token
    String token = "tok-123";
    long[] ids = new long[3];
    for (int i = 0; i < 3; i++) {
      ids[i] = EtcdIds.memberId(List.of(peerUrl("test", i)), token);
    }
    assertThat(ids).containsExactly(0xb7774d4441a34c83L, 0xd9b91b07ebe0b493L, 0x9675c13f50a8fc04L);
    assertThat(EtcdIds.clusterId(ids)).isEqualTo(0xec3a153af866ad60L);
  }

  /** The pods of a new cluster as the operator starts them, each on an address of its own. */
  private List<Pod> pods(String cluster, int size) throws IOException {
    List<String> initial = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      initial.add(cluster + "-" + i + "=" + peerUrl(cluster, i));
    }
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String ip = pool.acquire();
      addresses.add(ip);
      String name = cluster + "-" + i;
      List<String> argv =
          List.of(
              "/usr/local/bin/etcd",
              "--name=" + name,
              "--data-dir=/var/run/etcd/default.etcd",
              "--listen-peer-urls=http://" + ip + ":2380",
              "--listen-client-urls=http://" + ip + ":2379",
              "--listen-metrics-urls=http://" + ip + ":2381",
              "--initial-advertise-peer-urls=" + peerUrl(cluster, i),
              "--advertise-client-urls=http://" + host(cluster, i) + ":2379",
              "--auto-compaction-mode=periodic",
              "--auto-compaction-retention=5m");
      Map<String, String> env =
          Map.of(
              "ETCD_INITIAL_CLUSTER",
              String.join(",", initial),
              "ETCD_INITIAL_CLUSTER_STATE",
              "new",
              "ETCD_INITIAL_CLUSTER_TOKEN",
              cluster + "-token");
      pods.add(new Pod(name, ip, argv, env));
    }
    return pods;
  }

  private static String host(String cluster, int ordinal) {
    return cluster + "-" + ordinal + "." + cluster + "-headless.default.svc";
  }

  private static String peerUrl(String cluster, int ordinal) {
    return "http://" + host(cluster, ordinal) + ":2380";
  }

  /** The index of the member with the smallest ID (unsigned, as etcd compares them). */
  private static int smallestId(List<Member> members) {
    int smallest = 0;
    for (int i = 1; i < members.size(); i++) {
      if (Long.compareUnsigned(members.get(i).id(), members.get(smallest).id()) < 0) {
        smallest = i;
      }
    }
    return smallest;
  }

  /** "status body" of a GET. */
  private static String get(String url, HttpClient.Version version) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).version(version).timeout(DEADLINE).build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
}
