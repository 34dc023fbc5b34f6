package io.etcdoperator.operator;

import io.etcdoperator.operator.etcd.EtcdHttp;
import io.etcdoperator.operator.etcd.EtcdService;
import io.etcdoperator.operator.etcd.EtcdServiceConfig;
import io.etcdoperator.operator.etcd.JetcdEtcdService;
import io.etcdoperator.operator.metrics.OperatorMetrics;
import io.etcdoperator.operator.observe.MemberWatch;
import io.etcdoperator.operator.observe.WakeReason;
import io.etcdoperator.operator.reconcile.EtcdBackupReconciler;
import io.etcdoperator.operator.reconcile.EtcdBackupScheduleReconciler;
import io.etcdoperator.operator.reconcile.EtcdClusterReconciler;
import io.etcdoperator.operator.reconcile.ReconcilerSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator: the EtcdCluster controller on the Java Operator SDK, its etcd connections,
 * leader election on a Lease when configured, and the health and metrics endpoint. {@link #start}
 * returns once the controller runs (or waits for leadership); {@link #close} stops it all.
 *
 * <p>The operator writes without server-side apply (status by a PUT of the status subresource,
 * objects by update, both with a resourceVersion), so that a real API server and fabric8's mock
 * server see the same requests.
 */
public final class EtcdOperator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdOperator.class);

  private final Operator operator;
  private final EtcdService etcd;
  private final MemberWatch watch;
  private final Optional<HttpEndpoints> http;
  private final PrometheusMeterRegistry registry;
  private final KubernetesClient client;
  private final Optional<OperatorSettings.LeaderElection> election;
  private final AtomicBoolean stopping;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EtcdOperator(
      Operator operator,
      EtcdService etcd,
      MemberWatch watch,
      Optional<HttpEndpoints> http,
      PrometheusMeterRegistry registry,
      KubernetesClient client,
      Optional<OperatorSettings.LeaderElection> election,
      AtomicBoolean stopping) {
    this.operator = operator;
    this.etcd = etcd;
    this.watch = watch;
    this.http = http;
    this.registry = registry;
    this.client = client;
    this.election = election;
    this.stopping = stopping;
  }

  /**
   * The Lease was lost while running (not given up by {@link #close}): this replica must stop
   * acting at once, and exiting is the safe way (Kubernetes restarts it as a candidate). Exits from
   * a thread of its own, so that the elector's thread is free for the shutdown that follows.
   */
  private static void exitOnLostLease(OperatorSettings.LeaderElection le) {
    LOG.error("Lost the Lease {}/{}: exiting", le.namespace(), le.name());
    Thread exit = new Thread(() -> System.exit(1), "exit-on-lost-lease");
    exit.start();
  }

  public static EtcdOperator start(KubernetesClient client, OperatorSettings settings) {
    JulBridge.install();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    AtomicBoolean leading = new AtomicBoolean(settings.leaderElection().isEmpty());
    AtomicBoolean stopping = new AtomicBoolean();
    JetcdEtcdService etcd =
        new JetcdEtcdService(EtcdServiceConfig.defaults().withDeadline(settings.etcdDeadline()));
    // Connections to members, reused across reconciles, dropped when their cluster is deleted.
    registry.gauge("etcd.operator.etcd.channels", etcd, JetcdEtcdService::openChannels);
    OperatorMetrics metrics = new OperatorMetrics(registry);
    MemberWatch watch = new MemberWatch(etcd);
    registry.gauge("etcd.operator.member.watch.clusters", watch, MemberWatch::watching);
    registry.more().counter("etcd.operator.member.watch.checks", List.of(), watch, w -> w.checks());
    for (WakeReason reason : WakeReason.values()) {
      registry
          .more()
          .counter(
              "etcd.operator.member.watch.triggers",
              Tags.of("reason", reason.label()),
              watch,
              w -> w.triggers(reason));
    }
    registry
        .more()
        .counter("etcd.operator.member.watch.rechecks", List.of(), watch, w -> w.rechecks());

    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .withUseSSAToPatchPrimaryResource(false)
                  .withSSABasedCreateUpdateMatchForDependentResources(false)
                  .withConcurrentReconciliationThreads(settings.reconcileThreads())
                  // stop() lets a reconcile under way finish before the etcd connections close
                  .withReconciliationTerminationTimeout(Duration.ofSeconds(10))
                  // The framework's counts over all clusters: per resource, its meters grew with
                  // every cluster, and the dashboard sums them anyway.
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry));
              settings
                  .leaderElection()
                  .ifPresent(
                      le ->
                          o.withLeaderElectionConfiguration(
                              LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
                                      le.name())
                                  .withLeaseNamespace(le.namespace())
                                  .withIdentity(le.identity())
                                  .withLeaseDuration(le.leaseDuration())
                                  .withRenewDeadline(
                                      le.leaseDuration().multipliedBy(2).dividedBy(3))
                                  .withRetryPeriod(le.leaseDuration().dividedBy(5))
                                  // not the framework's exit: it also exits when the elector
                                  // is cancelled by stop(), which in a shutdown hook blocks
                                  // forever (the pod then waited out its grace period)
                                  .withExitOnStopLeading(false)
                                  .withLeaderCallbacks(
                                      new LeaderCallbacks(
                                          () -> {
                                            LOG.info("Leading as {}", le.identity());
                                            leading.set(true);
                                          },
                                          () -> {
                                            LOG.info("Stopped leading as {}", le.identity());
                                            leading.set(false);
                                            if (le.exitWhenLost() && !stopping.get()) {
                                              exitOnLostLease(le);
                                            }
                                          },
                                          newLeader -> LOG.info("Leader is {}", newLeader)))
                                  .build()));
            });
    operator.register(
        new EtcdClusterReconciler(
            ReconcilerSettings.of(
                    etcd,
                    // Metrics are read only when no member sees a leader, after the probe: a third
                    // of the deadline keeps a frozen member from costing a second full one.
                    new EtcdHttp(settings.etcdDeadline().dividedBy(3)),
                    settings.quorumLossAlarm())
                .withHook(settings.callHook())
                .withOperatorImage(settings.operatorImage())
                .withMetrics(metrics)
                .withClusterWide(settings.namespaces().isEmpty())
                .withMemberWatch(watch)),
        c -> {
          // Called for delete events too, without a finalizer (EtcdClusterReconciler).
          c.withTriggerReconcilerOnAllEvents(true);
          // The model reads annotations (pause, rebuild opt-in) and labels, not only the spec: a
          // change of those is reconciled at once, not at the next resync. A status write is not.
          c.withGenerationAware(false);
          c.withOnUpdateFilter(EtcdClusterReconciler::worthReconciling);
          c.withItemStore(EtcdClusterReconciler.store());
          if (!settings.namespaces().isEmpty()) {
            c.settingNamespaces(settings.namespaces());
          }
        });
    EtcdHttp backupMetrics = new EtcdHttp(settings.etcdDeadline().dividedBy(3));
    operator.register(
        new EtcdBackupReconciler(etcd, backupMetrics, Clock.systemUTC(), settings.operatorImage()),
        c -> {
          if (!settings.namespaces().isEmpty()) {
            c.settingNamespaces(settings.namespaces());
          }
        });
    operator.register(
        new EtcdBackupScheduleReconciler(Clock.systemUTC(), settings.operatorImage(), metrics),
        c -> {
          if (!settings.namespaces().isEmpty()) {
            c.settingNamespaces(settings.namespaces());
          }
        });
    operator.start();
    Optional<HttpEndpoints> http =
        settings
            .http()
            .map(
                h ->
                    new HttpEndpoints(
                        h,
                        () ->
                            operator.getRuntimeInfo().isStarted()
                                && (!leading.get()
                                    || operator.getRuntimeInfo().allEventSourcesAreHealthy()),
                        () -> operator.getRuntimeInfo().isStarted(),
                        registry::scrape));
    LOG.info(
        "etcd-operator started, watching {}",
        settings.namespaces().isEmpty() ? "all namespaces" : settings.namespaces());
    return new EtcdOperator(
        operator, etcd, watch, http, registry, client, settings.leaderElection(), stopping);
  }

  /** The port of the health and metrics endpoint, when there is one. */
  public Optional<Integer> httpPort() {
    return http.map(HttpEndpoints::port);
  }

  /** Successful reconciles so far, over all clusters (from the framework's own metrics). */
  public double successfulReconciles() {
    return registry.find("operator.sdk.reconciliations.success").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  /** Open gRPC channels to etcd members, over all clusters. */
  public double etcdChannels() {
    return registry.find("etcd.operator.etcd.channels").gauge().value();
  }

  /** The metrics, as /metrics serves them. */
  public String scrapeMetrics() {
    return registry.scrape();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopping.set(true);
    http.ifPresent(HttpEndpoints::close);
    operator.stop();
    // the next replica takes over within its retry period rather than the lease's duration
    election.ifPresent(le -> LeaseRelease.release(client, le));
    watch.close();
    etcd.close();
    registry.close();
  }
}
