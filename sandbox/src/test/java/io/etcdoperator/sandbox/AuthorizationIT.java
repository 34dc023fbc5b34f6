package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox's API server authenticates every request by the kubeconfig's bearer token and
 * authorizes the operator's ServiceAccount against the RBAC of {@code deploy/}, answering as a real
 * API server does (401 Unauthorized, 403 Forbidden with its message).
 */
class AuthorizationIT {
  static final String SA = "system:serviceaccount:etcd-operator:etcd-operator";
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient operator;

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir);
    operator = sandbox.clientAs(sandbox.operatorIdentity());
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (sandbox != null) {
      sandbox.close();
    }
  }

  static HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(sandbox.apiUrl() + path)).timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpClient http() {
    return io.etcdoperator.sandbox.api.SelfSigned.httpClient(Duration.ofSeconds(5));
  }

  @Test
  void aRequestWithoutTheKubeconfigsTokenIsUnauthorized() throws Exception {
    for (String token : new String[] {null, "not-the-token"}) {
      HttpResponse<String> r = get("/api/v1/namespaces/default/pods", token);
      assertThat(r.statusCode()).isEqualTo(401);
      JsonNode s = new ObjectMapper().readTree(r.body());
      assertThat(s.path("kind").asText()).isEqualTo("Status");
      assertThat(s.path("reason").asText()).isEqualTo("Unauthorized");
      assertThat(s.path("message").asText()).isEqualTo("Unauthorized");
      assertThat(s.path("code").asInt()).isEqualTo(401);
    }
    assertThat(
            get("/api/v1/namespaces/default/pods", Kubeconfig.token(sandbox.config().kubeconfig()))
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void theKubeconfigIsReadableByItsOwnerOnly() throws Exception {
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(sandbox.config().kubeconfig())))
        .isEqualTo("rw-------");
  }

  @Test
  void theOperatorIsTheServiceAccountOfDeploy() {
    assertThat(sandbox.operatorIdentity().name()).isEqualTo(SA);
    assertThat(
            sandbox
                .client()
                .serviceAccounts()
                .inNamespace("etcd-operator")
                .withName("etcd-operator")
                .get())
        .isNotNull();
    assertThat(sandbox.client().rbac().clusterRoles().withName("etcd-operator").get()).isNotNull();
  }

  @Test
  void whatDeployGrantsIsAllowedAndTheRestForbiddenAsARealServerSaysIt() {
    assertThat(operator.configMaps().inAnyNamespace().list().getItems()).isNotNull();
    // Secrets: list and watch (the TLS Secrets, from the informer), and get (a backup's agent
    // is given the cluster's client certificate). Services: get (an unlabelled one of a cluster's
    // name, as another operator left it), never delete.
    assertThat(operator.secrets().inNamespace("default").list().getItems()).isNotNull();
    assertThatThrownBy(() -> operator.serviceAccounts().inNamespace("default").list())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getReason()).isEqualTo("Forbidden");
              assertThat(e.getStatus().getMessage())
                  .isEqualTo(
                      "serviceaccounts is forbidden: User \""
                          + SA
                          + "\" cannot list resource \"serviceaccounts\" in API group \"\" in the"
                          + " namespace \"default\"");
            });
    assertThatThrownBy(() -> operator.services().inNamespace("default").withName("s").delete())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e ->
                assertThat(e.getStatus().getMessage())
                    .startsWith("services \"s\" is forbidden: User \"" + SA + "\" cannot delete"));
    assertThatThrownBy(() -> operator.rbac().clusterRoles().list())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e ->
                assertThat(e.getStatus().getMessage())
                    .isEqualTo(
                        "clusterroles.rbac.authorization.k8s.io is forbidden: User \""
                            + SA
                            + "\" cannot list resource \"clusterroles\" in API group"
                            + " \"rbac.authorization.k8s.io\" at the cluster scope"));
    assertThat(sandbox.operatorUsage().uses())
        .anyMatch(
            u -> u.verb().equals("delete") && u.resource().equals("services") && !u.allowed());
  }

  @Test
  void aRoleBindingGrantsInItsNamespaceOnlyAndResourceNamesNameObjects() {
    sandbox
        .client()
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName("other")
                .endMetadata()
                .build())
        .createOr(n -> n.update());
    Identity user = new Identity("alice", java.util.List.of("system:authenticated"), false);
    Role role =
        new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
            .withNewMetadata()
            .withName("one-secret")
            .withNamespace("other")
            .endMetadata()
            .withRules(
                new PolicyRuleBuilder()
                    .withApiGroups("")
                    .withResources("secrets")
                    .withResourceNames("mine")
                    .withVerbs("get")
                    .build(),
                new PolicyRuleBuilder()
                    .withApiGroups("")
                    .withResources("pods/log")
                    .withVerbs("get")
                    .build())
            .build();
    RoleBinding binding =
        new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
            .withNewMetadata()
            .withName("alice")
            .withNamespace("other")
            .endMetadata()
            .withNewRoleRef("rbac.authorization.k8s.io", "Role", "one-secret")
            .addNewSubject()
            .withKind("User")
            .withName("alice")
            .endSubject()
            .build();
    sandbox.client().resource(role).create();
    sandbox.client().resource(binding).create();
    sandbox
        .client()
        .secrets()
        .inNamespace("other")
        .resource(
            new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName("mine")
                .endMetadata()
                .build())
        .create();
    try (KubernetesClient alice = sandbox.clientAs(user)) {
      assertThat(alice.secrets().inNamespace("other").withName("mine").get()).isNotNull();
      assertThatThrownBy(() -> alice.secrets().inNamespace("other").withName("yours").get())
          .hasMessageContaining("cannot get resource \"secrets\"");
      assertThatThrownBy(() -> alice.secrets().inNamespace("default").withName("mine").get())
          .hasMessageContaining("in the namespace \"default\"");
      assertThatThrownBy(() -> alice.secrets().inNamespace("other").list())
          .hasMessageContaining("cannot list resource \"secrets\"");
      assertThatThrownBy(() -> alice.pods().inNamespace("other").withName("p").get())
          .hasMessageContaining("cannot get resource \"pods\"");
    }
  }

  @Test
  void blockOwnerDeletionNeedsUpdateOnTheOwnersFinalizers() {
    var owner =
        new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Secret")
            .withName("owner")
            .withUid("u-1")
            .withController(true)
            .withBlockOwnerDeletion(true)
            .build();
    java.util.function.Supplier<io.fabric8.kubernetes.api.model.ConfigMap> cm =
        () ->
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("owned")
                .withNamespace("default")
                .withOwnerReferences(owner)
                .endMetadata()
                .build();
    assertThatThrownBy(() -> operator.resource(cm.get()).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage())
                  .startsWith(
                      "configmaps is forbidden: cannot set blockOwnerDeletion if an ownerReference"
                          + " refers to a resource you can't set finalizers on: User \""
                          + SA
                          + "\" cannot update resource \"secrets/finalizers\" in API group \"\" in"
                          + " the namespace \"default\"");
            });
    owner.setBlockOwnerDeletion(false);
    assertThat(operator.resource(cm.get()).create()).isNotNull();
  }

  @Test
  void controlRequestsAreTheAdministratorsOnly() throws Exception {
    String token = sandbox.issueToken(sandbox.operatorIdentity());
    HttpRequest post =
        HttpRequest.newBuilder(URI.create(sandbox.apiUrl() + "/sandbox/v1/fault"))
            .header("Authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"kill\",\"pod\":\"x\"}"))
            .build();
    HttpResponse<String> r = http().send(post, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("cannot post path \\\"/sandbox/v1/fault\\\"");
  }
}
