package io.etcdoperator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.etcdoperator.testing.WriterReport.Failure;
import io.etcdoperator.testing.WriterReport.Gap;
import io.etcdoperator.testing.WriterReport.Mark;
import io.etcdoperator.testing.WriterReport.Write;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The recording writer's bookkeeping, and its bounds against endpoints that never answer. */
class RecordingWriterTest {
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  private static final String PREFIX = "/writer/test/";

  private static Instant ms(long millis) {
    return T0.plusMillis(millis);
  }

  private static Write ack(long seq, long atMillis, long revision) {
    return new Write(
        seq,
        RecordingWriter.keyOf(PREFIX, seq),
        revision,
        "http://127.0.0.1:2379",
        ms(atMillis),
        Duration.ofMillis(5));
  }

  private static Failure failed(long seq, long atMillis, long tookMillis) {
    return new Failure(
        seq,
        RecordingWriter.keyOf(PREFIX, seq),
        "http://127.0.0.1:2379",
        ms(atMillis),
        Duration.ofMillis(tookMillis),
        "DEADLINE_EXCEEDED");
  }

  private static Map<String, EtcdKv.Entry> stored(Write... writes) {
    Map<String, EtcdKv.Entry> found = new HashMap<>();
    for (Write w : writes) {
      found.put(
          w.key(),
          new EtcdKv.Entry(w.key(), RecordingWriter.valueOf(w.seq()), w.revision(), w.revision()));
    }
    return found;
  }

  private static WriterReport report(
      List<Write> acks, List<Failure> failures, Optional<Map<String, EtcdKv.Entry>> found) {
    return WriterReport.of(
        PREFIX,
        List.of("http://127.0.0.1:2379"),
        T0,
        ms(5000),
        50,
        acks,
        failures,
        List.of(),
        Duration.ofMillis(200),
        found,
        found.isPresent() ? Optional.empty() : Optional.of("no quorum"));
  }

  @Test
  void keysSortInTheOrderTheyWereWritten() {
    assertThat(RecordingWriter.keyOf(PREFIX, 9)).isLessThan(RecordingWriter.keyOf(PREFIX, 10));
    assertThat(RecordingWriter.keyOf(PREFIX, 12)).isEqualTo("/writer/test/00000012");
  }

  @Test
  void gapsRunFromAcknowledgementToAcknowledgementAndCountFailures() {
    List<Write> acks = List.of(ack(0, 100, 2), ack(1, 120, 3), ack(4, 1500, 4), ack(5, 1520, 5));
    List<Failure> failures = List.of(failed(2, 140, 1000), failed(3, 1140, 300));

    List<Gap> gaps = WriterReport.allGaps(T0, acks, failures);

    // start-up before the first acknowledgement had no failure: not a gap
    assertThat(gaps)
        .containsExactly(
            new Gap(ms(100), ms(120), 0),
            new Gap(ms(120), ms(1500), 2),
            new Gap(ms(1500), ms(1520), 0));
  }

  @Test
  void failuresBeforeTheFirstAndAfterTheLastAcknowledgementAreGapsToo() {
    List<Write> acks = List.of(ack(1, 900, 2));
    List<Failure> failures = List.of(failed(0, 10, 800), failed(2, 950, 1000));

    assertThat(WriterReport.allGaps(T0, acks, failures))
        .containsExactly(new Gap(T0, ms(900), 1), new Gap(ms(900), ms(1950), 1));
    assertThat(WriterReport.allGaps(T0, List.of(), failures))
        .containsExactly(new Gap(T0, ms(1950), 2));
    assertThat(WriterReport.allGaps(T0, List.of(), List.of())).isEmpty();
  }

  @Test
  void reportListsLostAlteredAndAppliedKeysAndTheLongGapsOnly() {
    Write kept = ack(0, 100, 2);
    Write lost = ack(1, 120, 3);
    Write rewritten = ack(3, 1500, 5);
    Failure appliedAnyway = failed(2, 140, 1000);
    Map<String, EtcdKv.Entry> found = stored(kept, rewritten);
    found.put(rewritten.key(), new EtcdKv.Entry(rewritten.key(), RecordingWriter.valueOf(3), 2, 2));
    found.put(appliedAnyway.key(), new EtcdKv.Entry(appliedAnyway.key(), "seq=2", 4, 4));

    WriterReport r =
        report(List.of(kept, lost, rewritten), List.of(appliedAnyway), Optional.of(found));

    assertThat(r.verified()).isTrue();
    assertThat(r.ok()).isFalse();
    assertThat(r.lostKeys()).containsExactly(lost.key());
    assertThat(r.altered()).containsExactly(rewritten);
    assertThat(r.unconfirmedApplied()).containsExactly(appliedAnyway);
    assertThat(r.gaps()).containsExactly(new Gap(ms(120), ms(1500), 1));
    assertThat(r.longestGapLength()).isEqualTo(Duration.ofMillis(1380));
    assertThat(r.summary())
        .startsWith("writer /writer/test/: 3 acknowledged, 1 lost, 1 altered, 1 unconfirmed")
        .contains("longest gap 1.380 s (+0.120 s..+1.500 s)")
        .contains("1 gap >= 200 ms")
        .contains("lost: /writer/test/00000001");
  }

  @Test
  void unreadableClusterIsNotVerifiedAndCountsNothingLost() {
    WriterReport r = report(List.of(ack(0, 100, 2)), List.of(), Optional.empty());

    assertThat(r.verified()).isFalse();
    assertThat(r.ok()).isFalse();
    assertThat(r.lost()).isEmpty();
    assertThat(r.summary()).contains("NOT VERIFIED (no quorum)");
  }

  @Test
  void gapsAreAttributedToTheMarkWhoseWindowTheyOverlap() {
    List<Write> acks = List.of(ack(0, 100, 2), ack(1, 1100, 3), ack(2, 1120, 4), ack(3, 3000, 5));
    WriterReport r =
        WriterReport.of(
            PREFIX,
            List.of(),
            T0,
            ms(3500),
            50,
            acks,
            List.of(),
            List.of(new Mark("restart a", ms(500)), new Mark("restart b", ms(1110))),
            Duration.ofMillis(200),
            Optional.of(stored(acks.toArray(Write[]::new))),
            Optional.empty());

    assertThat(r.gapsByMark())
        .extracting(m -> m.mark().label(), m -> m.longest().map(Gap::length).orElseThrow())
        .containsExactly(
            tuple("restart a", Duration.ofMillis(1000)),
            tuple("restart b", Duration.ofMillis(1880)));
    assertThat(r.longestGapBetween(ms(1101), ms(1119)).map(Gap::length))
        .contains(Duration.ofMillis(20));
  }

  @Test
  void namesExpandToEveryAddressAndUnknownNamesAreSkipped() {
    RecordingWriter.Resolver resolver =
        host -> {
          switch (host) {
            case "etcd-client.ns.svc":
              return List.of(
                  InetAddress.getByName("127.10.0.1"), InetAddress.getByName("127.10.0.2"));
            case "gone":
              throw new UnknownHostException(host);
            default:
              return List.of(InetAddress.getByName(host));
          }
        };

    assertThat(
            RecordingWriter.Endpoints.expand(
                List.of(
                    "http://etcd-client.ns.svc:2379",
                    "http://gone:2379",
                    "http://127.10.0.2:2379",
                    "http://[::1]:2379"),
                resolver))
        .containsExactly(
            "http://127.10.0.1:2379", "http://127.10.0.2:2379", "http://[0:0:0:0:0:0:0:1]:2379");
  }

  @Test
  void movesToTheNextEndpointAfterAFailureAndResolvesAgainAfterAFullRound() {
    List<List<InetAddress>> answers = new ArrayList<>();
    RecordingWriter.Resolver resolver =
        host -> {
          List<InetAddress> a =
              answers.size() == 0
                  ? List.of(
                      InetAddress.getByName("127.10.0.1"), InetAddress.getByName("127.10.0.2"))
                  : List.of(InetAddress.getByName("127.10.0.3"));
          answers.add(a);
          return a;
        };
    RecordingWriter.Endpoints endpoints =
        new RecordingWriter.Endpoints(List.of("http://etcd:2379"), resolver);

    assertThat(endpoints.current()).contains("http://127.10.0.1:2379");
    assertThat(endpoints.current()).contains("http://127.10.0.1:2379");
    endpoints.advance();
    assertThat(endpoints.current()).contains("http://127.10.0.2:2379");
    endpoints.advance();
    assertThat(endpoints.current()).contains("http://127.10.0.3:2379");
    assertThat(answers).hasSize(2);
  }

  /**
   * A member that accepts connections and never answers (a frozen process: the kernel accepts for
   * it) costs each put one deadline; the writer moves on and stops by itself at its max duration.
   */
  @Test
  void silentEndpointsCostOneDeadlineEachAndTheWriterStopsByItself() throws IOException {
    String silentHost = LoopbackAddresses.allocate(LocalEtcdMember.CLIENT_PORT);
    String refusingHost = LoopbackAddresses.allocate(LocalEtcdMember.CLIENT_PORT);
    List<Socket> accepted = Collections.synchronizedList(new ArrayList<>());
    try (ServerSocket silent = new ServerSocket()) {
      silent.bind(
          new InetSocketAddress(InetAddress.getByName(silentHost), LocalEtcdMember.CLIENT_PORT));
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (!silent.isClosed()) {
                    accepted.add(silent.accept());
                  }
                } catch (IOException e) {
                  // closed
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      Duration deadline = Duration.ofMillis(300);
      try (RecordingWriter writer =
          RecordingWriter.builder(
                  List.of(
                      "http://" + silentHost + ":" + LocalEtcdMember.CLIENT_PORT,
                      "http://" + refusingHost + ":" + LocalEtcdMember.CLIENT_PORT))
              .rate(20)
              .putDeadline(deadline)
              .maxDuration(Duration.ofMillis(1500))
              .verifyTimeout(Duration.ofMillis(700))
              .start()) {
        await().atMost(Duration.ofSeconds(5)).until(() -> !writer.isRunning());
        WriterReport report = writer.report();

        // stopped by itself: at its max duration, plus at most the put then in flight
        assertThat(report.ran()).isLessThan(Duration.ofMillis(1500).plus(deadline).plusMillis(700));
        assertThat(report.acknowledged()).isEmpty();
        assertThat(report.unconfirmed()).hasSizeGreaterThan(3);
        List<Failure> onSilent =
            report.unconfirmed().stream().filter(f -> f.endpoint().contains(silentHost)).toList();
        assertThat(onSilent).isNotEmpty();
        assertThat(onSilent)
            .allSatisfy(
                f -> {
                  assertThat(f.error()).contains("DEADLINE_EXCEEDED");
                  assertThat(f.took()).isLessThan(deadline.plusMillis(400));
                });
        assertThat(report.unconfirmed())
            .anySatisfy(f -> assertThat(f.endpoint()).contains(refusingHost));
        assertThat(report.verified()).isFalse();
        assertThat(report.summary()).contains("0 acknowledged").contains("NOT VERIFIED");
      }
    } finally {
      synchronized (accepted) {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }
}
