package io.etcdoperator.sandbox.api;

import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The sandbox's Kubernetes API: fabric8's mock server in CRUD mode behind a {@link
 * SandboxDispatcher}, listening on HTTPS (a self-signed certificate) on a loopback address: clients
 * such as kubectl send bearer tokens over TLS only.
 */
public final class ApiServer implements AutoCloseable {
  // The mock web server logs every request at INFO through java.util.logging; keep it quiet.
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

  static {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  private final SandboxDispatcher dispatcher = new SandboxDispatcher();
  private final KubernetesMockServer server;
  private final String adminToken = dispatcher.authenticator().issue(Identity.administrator());
  private String url;
  private ClusterCa ca;
  private KubectlFront front;
  private String frontUrl;

  public ApiServer() {
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), dispatcher, true);
  }

  /** Starts listening on the given loopback address and port (0: any free port). */
  public void start(InetAddress address, int port) {
    server.init(address, port);
    url = "https://" + address.getHostAddress() + ":" + server.getPort();
    dispatcher.setServerAddress(address.getHostAddress() + ":" + server.getPort());
    ca = ClusterCa.create(address.getHostAddress());
    try {
      front = new KubectlFront(address.getHostAddress(), server.getPort(), dispatcher::tableOf, ca);
    } catch (Exception e) {
      throw new IllegalStateException("the sandbox's kubectl front did not start: " + e, e);
    }
    frontUrl = "https://" + address.getHostAddress() + ":" + front.port();
  }

  /**
   * The URL for kubectl and the kubeconfig: the API server behind a front that also serves watches
   * over chunked HTTP (see {@link KubectlFront}).
   */
  public String kubectlUrl() {
    return frontUrl;
  }

  /** The CA that signed the certificate of {@link #kubectlUrl()}'s address, PEM. */
  public String caPem() {
    return ca.caPem();
  }

  /** Base URL, e.g. {@code https://127.0.0.1:34567}. */
  public String url() {
    return url;
  }

  public void setLogSource(LogSource logs) {
    dispatcher.setLogSource(logs);
  }

  /** Where messages find a pod's main process (the kubelet). */
  public void setPodProcesses(PodProcesses pods) {
    dispatcher.setPodProcesses(pods);
  }

  /** The tolerationSeconds the DefaultTolerationSeconds admission gives new pods. */
  public void setDefaultTolerationSeconds(long seconds) {
    dispatcher.setDefaultTolerationSeconds(seconds);
  }

  public void setControlHandler(ControlHandler handler) {
    dispatcher.setControlHandler(handler);
  }

  /** Faults the server injects into its answers to one user. */
  public ApiFaults faults() {
    return dispatcher.faults();
  }

  /** The administrator's bearer token (the kubeconfig's). */
  public String adminToken() {
    return adminToken;
  }

  /** A new bearer token that authenticates as the identity. */
  public String issueToken(Identity identity) {
    return dispatcher.authenticator().issue(identity);
  }

  /** A new bearer token that authenticates as the identity until {@code expires}. */
  public String issueToken(Identity identity, Instant expires) {
    return dispatcher.authenticator().issue(identity, expires);
  }

  /** What a non-administrator has asked this server for so far. */
  public RbacUsage usage(Identity identity) {
    return dispatcher.usage(identity);
  }

  /** A client configuration for this server, as the administrator. */
  public Config clientConfig() {
    return clientConfig(adminToken);
  }

  /** A client configuration for this server, authenticating with the token. */
  public Config clientConfig(String token) {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url)
        .withNamespace("default")
        .withOauthToken(token)
        .withTrustCerts(true)
        .withRequestTimeout(10_000)
        .withConnectionTimeout(5_000)
        .build();
  }

  /** A new client of this server, as the administrator; the caller closes it. */
  public KubernetesClient newClient() {
    return newClient(adminToken);
  }

  /** A new client of this server authenticating with the token; the caller closes it. */
  public KubernetesClient newClient(String token) {
    return new KubernetesClientBuilder().withConfig(clientConfig(token)).build();
  }

  /**
   * Stores a CRD, which makes the mock serve its custom resources (status subresource included).
   */
  public void registerCrd(KubernetesClient client, CustomResourceDefinition crd) {
    crd.getMetadata().setResourceVersion(null);
    client.apiextensions().v1().customResourceDefinitions().resource(crd).createOr(c -> c.update());
  }

  /**
   * Deletes an object by its API path inside the server, without an HTTP round trip (safe to call
   * while handling a request); true if it existed.
   */
  public boolean deleteInProcess(String path) {
    var r =
        dispatcher.dispatchAs(
            Identity.administrator(),
            new RecordedRequest(
                "HTTP/1.1", HttpMethod.DELETE, path, Headers.builder().build(), new Buffer()));
    return r.code() == 200;
  }

  /** Every type served now: built-in kinds and those of the stored CRDs. */
  public List<ResourceType> types() {
    try {
      return dispatcher.types();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (front != null) {
      front.close();
    }
    server.destroy();
  }
}
