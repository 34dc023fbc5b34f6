package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.cli.RenderCommand;
import io.etcdoperator.operator.tls.ClientTls;
import io.etcdoperator.testing.CertManagerEmulation;
import io.etcdoperator.testing.S3ProxyServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * No private key, token or Secret value ever appears in what the operator shows.
 *
 * <p>The test makes the secrets: the TLS example's certificates with their private keys (issued
 * here as cert-manager would), the S3 credentials of a backup, and the bearer token the operator's
 * client carries. It runs the TLS example (TLS everywhere, certificate authentication) to Ready and
 * backs it up to S3 (s3proxy on loopback), with the operator logging at TRACE. Then it searches,
 * for each secret (as text, as base64 as a Secret holds it, and each line of a PEM body):
 *
 * <ul>
 *   <li>every line the operator's own loggers wrote, at every level (the libraries' loggers, at the
 *       levels the tests run them, print to the console and are not searched);
 *   <li>every Event;
 *   <li>every object of the namespace but the Secrets: the statuses of the operator's resources,
 *       and what it wrote (pod templates, ConfigMaps, annotations, the backup agent's pod);
 *   <li>the logs of every container of every pod (etcd's, the backup agent's);
 *   <li>{@code render}'s output and errors for a file that holds the cluster and its Secrets.
 * </ul>
 *
 * <p>Each surface is also checked to hold something (a search of nothing proves nothing), and the
 * search itself is shown to find a planted secret.
 */
class SecretsNeverShownE2EIT {
  static final Path EXAMPLE = Path.of("../examples/tls/etcdcluster-tls.yaml");
  static final String OPERATOR_LOGGER = "io.etcdoperator.operator";

  @TempDir Path dir;

  private final Captured captured = new Captured();
  private Level levelBefore;
  private final Filter<ILoggingEvent> quietConsole = new QuietConsole();

  @BeforeEach
  void captureEveryLevelOfTheOperatorsLog() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger operator = ctx.getLogger(OPERATOR_LOGGER);
    levelBefore = operator.getLevel();
    captured.setContext(ctx);
    captured.start();
    operator.addAppender(captured);
    operator.setLevel(Level.TRACE);
    console().addFilter(quietConsole);
  }

  @AfterEach
  void restoreTheLog() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger operator = ctx.getLogger(OPERATOR_LOGGER);
    operator.setLevel(levelBefore);
    operator.detachAppender(captured);
    captured.stop();
    console().clearAllFilters();
  }

  @Test
  void noKeyTokenOrSecretValueInLogsEventsObjectsPodLogsOrRender() throws Exception {
    CertManagerEmulation certs = CertManagerEmulation.of(EXAMPLE);
    Map<String, Map<String, byte[]>> tls = certs.issueAll();
    Map<String, String> secrets = new LinkedHashMap<>();
    tls.forEach(
        (secret, data) -> {
          byte[] key = data.get("tls.key");
          if (key != null) {
            secrets.put(secret + "/tls.key", new String(key, StandardCharsets.US_ASCII));
          }
        });
    secrets.put("s3-credentials/AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);

    Map<String, String> surfaces = new LinkedHashMap<>();
    try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3"), "backups");
        E2E e2e = E2E.start(TlsE2EIT.sandbox(dir.resolve("sandbox")))) {
      secrets.put("the operator's token", e2e.sandbox().operatorToken());
      ClientTls root = TlsE2EIT.applyExample(e2e, tls);
      try (Cluster c = new Cluster(e2e, TlsE2EIT.C, root)) {
        c.awaitConverged(1, 3, TlsE2EIT.STEP);
        e2e.createS3Credentials("s3-credentials", S3ProxyServer.SECRET_KEY);
        e2e.client().resource(backup(e2e.client(), s3.endpoint())).create();
        await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> phase(e2e.client()).matches("Complete|Failed"));
        assertThat(phase(e2e.client())).as("the backup to S3").isEqualTo("Complete");

        surfaces.put("the operator's log", String.join("\n", captured.lines));
        surfaces.put("Events", events(e2e.client()));
        surfaces.put("objects", objects(e2e.client()));
        surfaces.put("pod logs", podLogs(e2e.client()));
      }
    }
    surfaces.put("render", render(tls));

    assertThat(captured.lines)
        .as("the operator's log, captured below INFO")
        .anyMatch(l -> l.startsWith("DEBUG") || l.startsWith("TRACE"));
    assertThat(surfaces.get("Events")).contains("BootstrapFinished");
    assertThat(surfaces.get("objects")).contains("kind: \"StatefulSet\"", "kind: \"EtcdBackup\"");
    assertThat(surfaces.get("pod logs")).contains("etcd-tls-0/etcd:", "to-s3-backup/");
    assertThat(surfaces.get("render")).contains("kind: StatefulSet");
    assertThat(
            leaks(
                Map.of("planted", "a line " + marks(secrets.get("etcd-tls-ca/tls.key")).get(0)),
                secrets))
        .as("the search finds a secret where one is")
        .isNotEmpty();

    List<String> leaks = leaks(surfaces, secrets);
    System.out.printf(
        "secrets searched: %d; surfaces: %s%n",
        secrets.size(),
        surfaces.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue().length() + " chars")
            .toList());
    assertThat(leaks).as("secrets shown").isEmpty();
  }

  /** Where each secret (by name) shows in each surface: "surface: secret", or empty. */
  static List<String> leaks(Map<String, String> surfaces, Map<String, String> secrets) {
    List<String> found = new ArrayList<>();
    surfaces.forEach(
        (surface, text) ->
            secrets.forEach(
                (name, value) -> {
                  for (String mark : marks(value)) {
                    if (text.contains(mark)) {
                      found.add(surface + ": " + name);
                      return;
                    }
                  }
                }));
    return found;
  }

  /**
   * What gives a secret away: the value itself (a token, a password), its base64 (as a Secret's
   * data holds it), and, for a PEM, each full line of its body (a key's first line is mostly the
   * same for every key of its algorithm; a full line is not) and a stretch of its base64's end.
   */
  static List<String> marks(String value) {
    List<String> marks = new ArrayList<>();
    String b64 = Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.US_ASCII));
    if (value.contains("-----BEGIN")) {
      value.lines().filter(l -> !l.startsWith("-----") && l.length() >= 40).forEach(marks::add);
      marks.add(b64.substring(b64.length() - 100, b64.length() - 60));
    } else {
      marks.add(value);
      marks.add(b64);
    }
    return marks;
  }

  private static EtcdBackup backup(KubernetesClient client, String endpoint) {
    return client
        .getKubernetesSerialization()
        .unmarshal(
            """
            apiVersion: etcd.aenix.io/v1alpha1
            kind: EtcdBackup
            metadata:
              name: to-s3
              namespace: default
            spec:
              clusterRef:
                name: etcd-tls
              destination:
                s3:
                  endpoint: %s
                  bucket: backups
                  key: etcd-tls
                  forcePathStyle: true
                  credentialsSecretRef:
                    name: s3-credentials
            """
                .formatted(endpoint),
            EtcdBackup.class);
  }

  private static String phase(KubernetesClient client) {
    EtcdBackup b = client.resources(EtcdBackup.class).inNamespace(E2E.NS).withName("to-s3").get();
    return b == null || b.getStatus() == null ? "" : String.valueOf(b.getStatus().getPhase());
  }

  private static String events(KubernetesClient client) {
    StringBuilder out = new StringBuilder();
    client.v1().events().inAnyNamespace().list().getItems().stream()
        .forEach(e -> out.append(e.getReason()).append(": ").append(e.getMessage()).append('\n'));
    return out.toString();
  }

  /** Every object of the namespace but its Secrets, as YAML. */
  private static String objects(KubernetesClient client) {
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(client.resources(EtcdCluster.class).inNamespace(E2E.NS).list().getItems());
    all.addAll(client.resources(EtcdBackup.class).inNamespace(E2E.NS).list().getItems());
    all.addAll(client.apps().statefulSets().inNamespace(E2E.NS).list().getItems());
    all.addAll(client.pods().inNamespace(E2E.NS).list().getItems());
    all.addAll(client.configMaps().inNamespace(E2E.NS).list().getItems());
    all.addAll(client.services().inNamespace(E2E.NS).list().getItems());
    all.addAll(client.persistentVolumeClaims().inNamespace(E2E.NS).list().getItems());
    all.addAll(client.policy().v1().podDisruptionBudget().inNamespace(E2E.NS).list().getItems());
    StringBuilder out = new StringBuilder();
    all.forEach(o -> out.append(client.getKubernetesSerialization().asYaml(o)));
    return out.toString();
  }

  /** Each container's log (init containers too), each line as {@code <pod>/<container>: <line>}. */
  private static String podLogs(KubernetesClient client) {
    StringBuilder out = new StringBuilder();
    for (Pod p : client.pods().inNamespace(E2E.NS).list().getItems()) {
      String pod = p.getMetadata().getName();
      List<Container> containers = new ArrayList<>(p.getSpec().getContainers());
      if (p.getSpec().getInitContainers() != null) {
        containers.addAll(p.getSpec().getInitContainers());
      }
      for (Container c : containers) {
        String log =
            client.pods().inNamespace(E2E.NS).withName(pod).inContainer(c.getName()).getLog();
        if (log != null) {
          log.lines()
              .forEach(
                  l ->
                      out.append(pod)
                          .append('/')
                          .append(c.getName())
                          .append(": ")
                          .append(l)
                          .append('\n'));
        }
      }
    }
    return out.toString();
  }

  /** {@code render -f} of a file that holds the example's EtcdCluster and its Secrets. */
  private String render(Map<String, Map<String, byte[]>> tls) throws Exception {
    StringBuilder file = new StringBuilder(Files.readString(EXAMPLE));
    for (Map.Entry<String, Map<String, byte[]>> e : tls.entrySet()) {
      file.append("\n---\n")
          .append(
              new KubernetesSerialization()
                  .asYaml(E2E.tlsSecret(E2E.NS, e.getKey(), e.getValue())));
    }
    Path manifest = dir.resolve("with-secrets.yaml");
    Files.writeString(manifest, file.toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        new CommandLine(new RenderCommand())
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(err))
            .execute("-f", manifest.toString());
    assertThat(exit).as(err.toString()).isZero();
    return out + "\n" + err;
  }

  private static Appender<ILoggingEvent> console() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    return ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDOUT");
  }

  /** Every event of the operator's loggers, as {@code LEVEL logger message} and its stack. */
  static final class Captured extends AppenderBase<ILoggingEvent> {
    final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();

    @Override
    protected void append(ILoggingEvent e) {
      String line = e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage();
      if (e.getThrowableProxy() != null) {
        line += "\n" + ThrowableProxyUtil.asString(e.getThrowableProxy());
      }
      lines.add(line);
    }
  }

  /** The console keeps the level logback-test.xml gives the operator, while capture takes all. */
  static final class QuietConsole extends Filter<ILoggingEvent> {
    @Override
    public FilterReply decide(ILoggingEvent e) {
      return e.getLoggerName().startsWith(OPERATOR_LOGGER)
              && !e.getLevel().isGreaterOrEqual(Level.WARN)
          ? FilterReply.DENY
          : FilterReply.NEUTRAL;
    }
  }
}
