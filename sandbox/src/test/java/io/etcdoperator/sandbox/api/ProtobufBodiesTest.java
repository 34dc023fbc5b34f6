package io.etcdoperator.sandbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.IntStr;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Bodies in Kubernetes' protobuf encoding, as kubectl sends them, read as the JSON a real API
 * server would read them as: plain fields by their names, bytes in base64, maps, lists, and the
 * types JSON spells differently (times, quantities, int-or-strings).
 */
class ProtobufBodiesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static byte[] wire(String apiVersion, String kind, Message object) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(new byte[] {'k', '8', 's', 0});
    Runtime.Unknown.newBuilder()
        .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion(apiVersion).setKind(kind))
        .setRaw(object.toByteString())
        .setContentType("application/vnd.kubernetes.protobuf")
        .build()
        .writeTo(out);
    return out.toByteArray();
  }

  private static JsonNode read(byte[] wire) throws Exception {
    return JSON.readTree(ProtobufBodies.toJson(wire));
  }

  /** Helm's uninstall deletes its release Secret with these options in the DELETE's body. */
  @Test
  void deleteOptionsNamedV1AreReadAsMetaV1s() throws Exception {
    Meta.DeleteOptions options =
        Meta.DeleteOptions.newBuilder().setPropagationPolicy("Background").build();
    JsonNode json = read(wire("v1", "DeleteOptions", options));
    assertThat(json.path("kind").asText()).isEqualTo("DeleteOptions");
    assertThat(json.path("propagationPolicy").asText()).isEqualTo("Background");
  }

  @Test
  void aSecretAsKubectlCreateSecretSendsIt() throws Exception {
    V1.Secret secret =
        V1.Secret.newBuilder()
            .setMetadata(
                Meta.ObjectMeta.newBuilder()
                    .setName("s1")
                    .setNamespace("default")
                    .putLabels("app", "x")
                    .setCreationTimestamp(Meta.Time.newBuilder().setSeconds(1_700_000_000)))
            .putData("password", ByteString.copyFrom("hunter2", StandardCharsets.UTF_8))
            .setType("Opaque")
            .build();
    JsonNode json = read(wire("v1", "Secret", secret));
    assertThat(json.path("apiVersion").asText()).isEqualTo("v1");
    assertThat(json.path("kind").asText()).isEqualTo("Secret");
    assertThat(json.path("metadata").path("name").asText()).isEqualTo("s1");
    assertThat(json.path("metadata").path("labels").path("app").asText()).isEqualTo("x");
    assertThat(json.path("metadata").path("creationTimestamp").asText())
        .isEqualTo("2023-11-14T22:13:20Z");
    assertThat(json.path("data").path("password").asText()).isEqualTo("aHVudGVyMg==");
    assertThat(json.path("type").asText()).isEqualTo("Opaque");
  }

  @Test
  void intOrStringsAndQuantitiesAreSpelledAsJsonSpellsThem() throws Exception {
    V1.Service service =
        V1.Service.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("svc"))
            .setSpec(
                V1.ServiceSpec.newBuilder()
                    .addPorts(
                        V1.ServicePort.newBuilder()
                            .setPort(80)
                            .setTargetPort(
                                IntStr.IntOrString.newBuilder().setType(0).setIntVal(8080)))
                    .addPorts(
                        V1.ServicePort.newBuilder()
                            .setPort(81)
                            .setTargetPort(
                                IntStr.IntOrString.newBuilder().setType(1).setStrVal("http"))))
            .build();
    JsonNode ports = read(wire("v1", "Service", service)).path("spec").path("ports");
    assertThat(ports.get(0).path("targetPort").asInt()).isEqualTo(8080);
    assertThat(ports.get(0).path("targetPort").isNumber()).isTrue();
    assertThat(ports.get(1).path("targetPort").asText()).isEqualTo("http");

    V1.ResourceRequirements resources =
        V1.ResourceRequirements.newBuilder()
            .putLimits("memory", Resource.Quantity.newBuilder().setString("512Mi").build())
            .build();
    V1Apps.Deployment deployment =
        V1Apps.Deployment.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("d"))
            .setSpec(
                V1Apps.DeploymentSpec.newBuilder()
                    .setReplicas(0)
                    .setTemplate(
                        V1.PodTemplateSpec.newBuilder()
                            .setSpec(
                                V1.PodSpec.newBuilder()
                                    .addContainers(
                                        V1.Container.newBuilder()
                                            .setName("c")
                                            .setImage("busybox")
                                            .setResources(resources)))))
            .build();
    JsonNode json = read(wire("apps/v1", "Deployment", deployment));
    assertThat(json.path("apiVersion").asText()).isEqualTo("apps/v1");
    assertThat(json.path("spec").path("replicas").isInt()).isTrue();
    assertThat(json.path("spec").path("replicas").asInt()).isZero();
    assertThat(json.at("/spec/template/spec/containers/0/resources/limits/memory").asText())
        .isEqualTo("512Mi");
  }

  @Test
  void aBodyThatIsNotKubernetesProtobufIsRefused() {
    assertThatThrownBy(() -> ProtobufBodies.toJson("{\"kind\":\"Secret\"}".getBytes()))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessageContaining("no k8s protobuf magic");
    assertThatThrownBy(
            () ->
                ProtobufBodies.toJson(
                    wire("example.com/v1", "Widget", V1.Namespace.getDefaultInstance())))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessageContaining("no protobuf message known for example.com/v1 Widget");
  }
}
