package io.etcdoperator.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * fabric8's mock Kubernetes API server in CRUD mode, with the EtcdCluster CRD installed, and a
 * record of the requests it served. It stands in for a real API server, which cannot run here.
 */
public final class MockApi implements AutoCloseable {
  private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  public MockApi() {
    java.util.logging.Logger.getLogger("io.fabric8.mockwebserver.MockWebServer")
        .setLevel(java.util.logging.Level.WARNING);
    server =
        new KubernetesMockServer(
            new io.fabric8.mockwebserver.Context(),
            new io.fabric8.mockwebserver.MockWebServer(),
            new java.util.HashMap<>(),
            new AuthorizingCrudDispatcher(),
            false);
    server.init(java.net.InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
    try (InputStream crd =
        MockApi.class.getResourceAsStream("/META-INF/fabric8/etcdclusters.etcd.aenix.io-v1.yml")) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(
              client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class))
          .create();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public KubernetesClient client() {
    return client;
  }

  public KubernetesMockServer server() {
    return server;
  }

  /** Requests served since the last call, as "METHOD path". */
  public List<String> drainRequests() {
    List<String> requests = new ArrayList<>();
    try {
      RecordedRequest r;
      while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
        requests.add(r.getMethod() + " " + r.getPath());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return requests;
  }

  /** The write requests among those served since the last call. */
  public List<String> drainWrites() {
    return drainRequests().stream()
        .filter(r -> WRITES.contains(r.substring(0, r.indexOf(' '))))
        .toList();
  }

  /**
   * The CRUD dispatcher, plus the one authorization question the operator asks (JOSDK's leader
   * election checks its Lease permissions with a SelfSubjectRulesReview, which the mock rejects):
   * answered as an API server would for a service account allowed everything.
   */
  static final class AuthorizingCrudDispatcher
      extends io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher {
    @Override
    public io.fabric8.mockwebserver.http.MockResponse handleCreate(RecordedRequest request) {
      if (request.getPath().contains("/selfsubjectrulesreviews")) {
        return new io.fabric8.mockwebserver.http.MockResponse()
            .setResponseCode(201)
            .setBody(
                "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\","
                    + "\"spec\":{},\"status\":{\"incomplete\":false,\"nonResourceRules\":[],"
                    + "\"resourceRules\":[{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}]}}");
      }
      return super.handleCreate(request);
    }
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
