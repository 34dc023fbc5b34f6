package io.etcdoperator.operator.etcd;

import io.grpc.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probes of {@link JetcdEtcdService}: a Status and a MemberList call to every member at once
 * under one deadline, then the answers collected; every failure becomes data (a member that does
 * not answer), never an exception that would cost the status of the whole cluster.
 */
final class EtcdProbes {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdProbes.class);

  private final EtcdCalls calls;

  EtcdProbes(EtcdCalls calls) {
    this.calls = calls;
  }

  CompletableFuture<List<EtcdStatus>> statuses(
      String clusterKey, List<String> clientUrls, Duration within) {
    Deadline deadline = Deadline.after(within.toNanos(), TimeUnit.NANOSECONDS);
    long waitMillis = within.plus(EtcdCalls.SAFETY_MARGIN).toMillis();
    List<CompletableFuture<EtcdStatus>> answers = new ArrayList<>();
    for (String url : clientUrls) {
      answers.add(
          calls
              .status(clusterKey, url, deadline)
              // a safety net against a call gRPC never ends, as EtcdCalls.await has
              .orTimeout(waitMillis, TimeUnit.MILLISECONDS)
              .handle(
                  (r, t) ->
                      t == null
                          ? EtcdMessages.status(url, r)
                          : EtcdStatus.unreachable(url, asyncFailure(t, url))));
    }
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]))
        .thenApply(done -> answers.stream().map(CompletableFuture::join).toList());
  }

  ClusterProbe probeAll(String clusterKey, List<String> expectedClientUrls, Deadline deadline) {
    long start = System.nanoTime();
    List<CompletableFuture<EtcdProbe>> inFlight = new ArrayList<>();
    for (String url : expectedClientUrls) {
      inFlight.add(probe(clusterKey, url, deadline));
    }
    List<EtcdProbe> probes = new ArrayList<>();
    for (int i = 0; i < inFlight.size(); i++) {
      String url = expectedClientUrls.get(i);
      try {
        probes.add(EtcdCalls.await(inFlight.get(i), url, deadline));
      } catch (EtcdException e) {
        ProbeFailure failure = ProbeFailure.of(e);
        probes.add(
            new EtcdProbe(
                EtcdStatus.unreachable(url, failure), Optional.empty(), Optional.of(failure)));
      }
    }
    return ClusterProbe.of(probes, Duration.ofNanos(System.nanoTime() - start));
  }

  CompletableFuture<EtcdProbe> probe(String clusterKey, String url, Deadline deadline) {
    CompletableFuture<EtcdStatus> status =
        calls
            .status(clusterKey, url, deadline)
            .handle(
                (r, t) ->
                    t == null
                        ? EtcdMessages.status(url, r)
                        : EtcdStatus.unreachable(url, probeFailure(t, url)));
    CompletableFuture<ListAnswer> list =
        calls
            .memberList(clusterKey, url, deadline)
            .handle(
                (r, t) ->
                    t == null
                        ? new ListAnswer(
                            Optional.of(
                                EtcdMessages.memberList(url, r.getHeader(), r.getMembersList())),
                            Optional.empty())
                        : new ListAnswer(Optional.empty(), Optional.of(probeFailure(t, url))));
    return status.thenCombine(list, (s, l) -> new EtcdProbe(s, l.list(), l.failure()));
  }

  private static ProbeFailure asyncFailure(Throwable t, String url) {
    Throwable cause = t instanceof CompletionException ? t.getCause() : t;
    return cause instanceof TimeoutException
        ? new ProbeFailure(EtcdFailure.DEADLINE_EXCEEDED, "no answer, even past the deadline")
        : probeFailure(cause, url);
  }

  private record ListAnswer(Optional<EtcdMemberList> list, Optional<ProbeFailure> failure) {}

  /**
   * Every failure of a probe becomes data: an unexpected one too (logged), as a member that does
   * not answer. One member's odd failure must not cost the status of the whole cluster.
   */
  private static ProbeFailure probeFailure(Throwable t, String url) {
    RuntimeException e = GrpcErrors.classify(t, url);
    if (e instanceof EtcdException expected) {
      return ProbeFailure.of(expected);
    }
    LOG.warn("Unexpected failure probing {}: {}", url, e.getMessage());
    return new ProbeFailure(EtcdFailure.UNREACHABLE, e.getMessage());
  }
}
