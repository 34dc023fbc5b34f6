package io.etcdoperator.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission as a real API server applies it: the EtcdCluster CRD's schema (types, minimum, pruning
 * of unknown fields, defaults) and CEL rules (with {@code oldSelf} on updates), and the core
 * validation of built-in objects, each refusal a 422 {@code Invalid} naming the field.
 */
class AdmissionIT {
  @TempDir static Path dir;
  static Sandbox sandbox;
  static KubernetesClient k;
  static final ResourceDefinitionContext ETCD =
      new ResourceDefinitionContext.Builder()
          .withGroup("etcd.aenix.io")
          .withVersion("v1alpha1")
          .withPlural("etcdclusters")
          .withKind("EtcdCluster")
          .withNamespaced(true)
          .build();

  @BeforeAll
  static void start() {
    sandbox = SandboxFixture.start(dir);
    k = sandbox.client();
  }

  @AfterAll
  static void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  static void invalid(ThrowingCallable call, String message) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
              assertThat(e.getStatus().getMessage()).isEqualTo(message);
              assertThat(e.getStatus().getDetails().getCauses()).isNotEmpty();
            });
  }

  static GenericKubernetesResource cluster(String yaml) {
    return k.getKubernetesSerialization()
        .unmarshal(
            "apiVersion: etcd.aenix.io/v1alpha1\nkind: EtcdCluster\n" + yaml,
            GenericKubernetesResource.class);
  }

  @Test
  void theSchemaPrunesUnknownFieldsAppliesDefaultsAndChecksTypes() {
    GenericKubernetesResource stored =
        k.genericKubernetesResources(ETCD)
            .resource(cluster("metadata: {name: pruned, namespace: default}\nspec: {bogus: 1}\n"))
            .create();
    Map<String, Object> spec = (Map<String, Object>) stored.getAdditionalProperties().get("spec");
    assertThat(spec).doesNotContainKey("bogus").containsEntry("replicas", 3);
    invalid(
        () ->
            k.genericKubernetesResources(ETCD)
                .resource(
                    cluster(
                        "metadata: {name: typed, namespace: default}\nspec: {replicas: three}\n"))
                .create(),
        "EtcdCluster.etcd.aenix.io \"typed\" is invalid: spec.replicas: Invalid value:"
            + " \"string\": spec.replicas in body must be of type integer: \"string\"");
  }

  /**
   * Every write records its manager's fields in metadata.managedFields, as a real API server does:
   * an update by another manager adds an entry, one by the same manager replaces its own.
   */
  @Test
  void everyWriteRecordsItsManagersFields() {
    String base = k.getMasterUrl() + "api/v1/namespaces/default/configmaps";
    var created =
        configMap(
            k.raw(
                base + "?fieldManager=first",
                "POST",
                Map.of(
                    "apiVersion",
                    "v1",
                    "kind",
                    "ConfigMap",
                    "metadata",
                    Map.of("name", "managed", "labels", Map.of("app", "x")),
                    "data",
                    Map.of("a", "1"))));
    assertThat(created.getMetadata().getManagedFields())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getManager()).isEqualTo("first");
              assertThat(e.getOperation()).isEqualTo("Update");
              assertThat(e.getFieldsType()).isEqualTo("FieldsV1");
              assertThat(e.getFieldsV1().getAdditionalProperties())
                  .containsKeys("f:data", "f:metadata");
              assertThat(e.getFieldsV1().getAdditionalProperties().get("f:data").toString())
                  .contains("f:a");
            });
    created.getData().put("b", "2");
    created.getMetadata().setManagedFields(null);
    var second = configMap(k.raw(base + "/managed?fieldManager=second", "PUT", created));
    assertThat(second.getMetadata().getManagedFields())
        .extracting(e -> e.getManager())
        .containsExactly("first", "second");
    second.getData().put("c", "3");
    var again = configMap(k.raw(base + "/managed?fieldManager=second", "PUT", second));
    assertThat(again.getMetadata().getManagedFields())
        .extracting(e -> e.getManager())
        .containsExactly("first", "second");
    assertThat(again.getMetadata().getManagedFields().get(1).getFieldsV1().toString())
        .contains("f:c");
  }

  private static io.fabric8.kubernetes.api.model.ConfigMap configMap(String json) {
    return k.getKubernetesSerialization()
        .unmarshal(json, io.fabric8.kubernetes.api.model.ConfigMap.class);
  }

  @Test
  void aTransitionRuleComparesWithTheStoredObject() {
    k.genericKubernetesResources(ETCD)
        .resource(
            cluster(
                "metadata: {name: kind, namespace: default}\nspec: {storage: {emptyDir: {}}}\n"))
        .create();
    invalid(
        () ->
            k.genericKubernetesResources(ETCD)
                .inNamespace("default")
                .withName("kind")
                .edit(
                    c -> {
                      c.getAdditionalProperties()
                          .put(
                              "spec",
                              Map.of(
                                  "storage",
                                  Map.of(
                                      "volumeClaimTemplate",
                                      Map.of(
                                          "spec",
                                          Map.of(
                                              "resources",
                                              Map.of("requests", Map.of("storage", "1Gi")))))));
                      return c;
                    }),
        "EtcdCluster.etcd.aenix.io \"kind\" is invalid: spec: Forbidden: spec.storage: the"
            + " storage kind (emptyDir or volumeClaimTemplate) cannot change after creation");
    assertThat(k.resources(EtcdCluster.class).inNamespace("default").withName("kind").get())
        .isNotNull();
  }

  @Test
  void aStatefulSetTemplateMustRestartAlwaysAndMatchItsSelector() {
    StatefulSet sts = Manifests.statefulSet("onfailure", 1, Manifests.shell("main", "sleep 1"));
    sts.getSpec().getTemplate().getSpec().setRestartPolicy("OnFailure");
    invalid(
        () -> k.resource(sts).create(),
        "StatefulSet.apps \"onfailure\" is invalid: spec.template.spec.restartPolicy: Unsupported"
            + " value: \"OnFailure\": supported values: \"Always\"");
    StatefulSet other = Manifests.statefulSet("mismatch", 1, Manifests.shell("main", "sleep 1"));
    other.getSpec().getSelector().setMatchLabels(Map.of("app", "else"));
    assertThatThrownBy(() -> k.resource(other).create())
        .hasMessageContaining(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"mismatch\"}:"
                + " `selector` does not match template `labels`");
  }

  @Test
  void labelValuesAndNamesAreCheckedAsKubernetesDoes() {
    String long64 = "a".repeat(64);
    invalid(
        () ->
            k.resource(
                    new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("labelled")
                        .withNamespace("default")
                        .withLabels(Map.of("app", long64))
                        .endMetadata()
                        .build())
                .create(),
        "ConfigMap \"labelled\" is invalid: metadata.labels: Invalid value: \""
            + long64
            + "\": must be no more than 63 characters");
    assertThatThrownBy(
            () ->
                k.resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("Bad_Name")
                            .withNamespace("default")
                            .endMetadata()
                            .build())
                    .create())
        .hasMessageContaining(
            "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain");
    assertThatThrownBy(
            () ->
                k.resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("keys")
                            .withNamespace("default")
                            .endMetadata()
                            .withData(Map.of("bad key", "v"))
                            .build())
                    .create())
        .hasMessageContaining("data[bad key]: Invalid value: \"bad key\": a valid config key");
  }

  @Test
  void aServicesClusterIpCannotChangeButExternalIpsPass() {
    Service s = Manifests.client("svc");
    s.getSpec().setExternalIPs(java.util.List.of("203.0.113.7"));
    Service created = k.resource(s).create();
    assertThat(created.getSpec().getClusterIP()).as("allocated as a real server does").isNotEmpty();
    Service updated = k.services().inNamespace("default").withName("svc").get();
    updated.getSpec().setClusterIP("None");
    updated.getSpec().setClusterIPs(null);
    invalid(
        () -> k.resource(updated).update(),
        "Service \"svc\" is invalid: spec.clusterIPs[0]: Invalid value: \"None\": may not change"
            + " once set");
    Service omitted = k.services().inNamespace("default").withName("svc").get();
    omitted.getSpec().setClusterIP(null);
    omitted.getSpec().setClusterIPs(null);
    assertThat(k.resource(omitted).update().getSpec().getClusterIP())
        .isEqualTo(created.getSpec().getClusterIP());
    Service badName = Manifests.client("1svc");
    assertThatThrownBy(() -> k.resource(badName).create())
        .hasMessageContaining("metadata.name: Invalid value: \"1svc\": a DNS-1035 label");
  }

  @Test
  void aPodDisruptionBudgetSetsOneBudget() {
    HasMetadata pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName("both")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withNewMinAvailable(2)
            .withNewMaxUnavailable(1)
            .withNewSelector()
            .withMatchLabels(Map.of("app", "x"))
            .endSelector()
            .endSpec()
            .build();
    assertThatThrownBy(() -> k.resource(pdb).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e ->
                assertThat(e.getStatus().getMessage())
                    .startsWith(
                        "PodDisruptionBudget.policy \"both\" is invalid: spec: Invalid value:")
                    .endsWith("minAvailable and maxUnavailable cannot be both set"));
  }

  @Test
  void aPodsSpecIsImmutableButForItsImages() {
    k.resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("fixed")
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withContainers(Manifests.shell("main", "sleep 3600"))
                .endSpec()
                .build())
        .create();
    assertThatThrownBy(
            () ->
                k.pods()
                    .inNamespace("default")
                    .withName("fixed")
                    .edit(
                        p -> {
                          p.getSpec().getContainers().get(0).setCommand(java.util.List.of("true"));
                          return p;
                        }))
        .hasMessageContaining("spec: Forbidden: pod updates may not change fields other than");
    // The kubelet writes the pod's status meanwhile: retry a conflict as kubectl edit would.
    String image = null;
    for (int attempt = 0; attempt < 20 && image == null; attempt++) {
      try {
        image =
            k.pods()
                .inNamespace("default")
                .withName("fixed")
                .edit(
                    p -> {
                      p.getSpec().getContainers().get(0).setImage("busybox:2");
                      return p;
                    })
                .getSpec()
                .getContainers()
                .get(0)
                .getImage();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    assertThat(image).isEqualTo("busybox:2");
  }
}
