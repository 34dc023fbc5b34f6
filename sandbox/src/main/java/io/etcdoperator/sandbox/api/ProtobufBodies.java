package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.proto.Runtime;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Request bodies in Kubernetes' protobuf encoding, as kubectl sends built-in kinds ({@code kubectl
 * create namespace}, {@code create secret}, {@code create configmap}, {@code auth can-i}...),
 * turned into the JSON the rest of the API server reads. A real API server accepts both.
 *
 * <p>The wire format: the magic {@code k8s\0}, then a {@code runtime.Unknown} message whose type
 * meta names the object's apiVersion and kind and whose raw bytes are the object's own message, as
 * Kubernetes' {@code generated.proto} defines it (the messages come from {@code
 * io.kubernetes:client-java-proto}, read here by their descriptors). Fields map to JSON by their
 * proto names, which are Kubernetes' JSON names; the few types JSON spells differently are written
 * as JSON spells them: a time as RFC 3339, a quantity and a duration as strings, an int-or-string
 * as one or the other, raw JSON as itself, bytes in base64.
 */
final class ProtobufBodies {
  static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ProtobufBodies() {}

  /** The request with its body as JSON when it came as protobuf; else the request itself. */
  static RecordedRequest asJson(RecordedRequest request) throws InvalidProtocolBufferException {
    String type = request.getHeader("Content-Type");
    if (type == null || !type.startsWith(PROTOBUF) || request.getBody() == null) {
      return request;
    }
    byte[] json = toJson(request.getBody().getBytes());
    Map<String, List<String>> headers = new LinkedHashMap<>();
    request
        .getHeaders()
        .toMultimap()
        .forEach(
            (k, v) -> {
              if (!k.equalsIgnoreCase("Content-Type") && !k.equalsIgnoreCase("Content-Length")) {
                headers.put(k, v);
              }
            });
    Headers.Builder builder = Headers.builder();
    headers.forEach((k, vs) -> vs.forEach(v -> builder.add(k, v)));
    builder.add("Content-Type", "application/json");
    builder.add("Content-Length", String.valueOf(json.length));
    return new RecordedRequest(
        request.getHttpVersion(),
        request.method(),
        request.getPath(),
        builder.build(),
        new Buffer(json));
  }

  /** One protobuf-encoded object as Kubernetes' JSON. */
  static byte[] toJson(byte[] body) throws InvalidProtocolBufferException {
    if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, 4), MAGIC)) {
      throw new InvalidProtocolBufferException("no k8s protobuf magic");
    }
    Runtime.Unknown unknown =
        Runtime.Unknown.parseFrom(Arrays.copyOfRange(body, MAGIC.length, body.length));
    String apiVersion = unknown.getTypeMeta().getApiVersion();
    String kind = unknown.getTypeMeta().getKind();
    Descriptor type =
        descriptor(apiVersion, kind)
            .orElseThrow(
                () ->
                    new InvalidProtocolBufferException(
                        "no protobuf message known for " + apiVersion + " " + kind));
    ObjectNode json = NODES.objectNode();
    json.put("apiVersion", apiVersion);
    json.put("kind", kind);
    json.setAll((ObjectNode) message(DynamicMessage.parseFrom(type, unknown.getRaw())));
    try {
      return MAPPER.writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The message of {@code kind} in {@code apiVersion}: {@code v1} is the outer class {@code V1},
   * {@code apps/v1} {@code V1Apps}, {@code rbac.authorization.k8s.io/v1} {@code V1Rbac}.
   */
  static Optional<Descriptor> descriptor(String apiVersion, String kind) {
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    String label = group.isEmpty() ? "" : group.split("\\.")[0];
    String outer = capitalized(version) + capitalized(label);
    Optional<Descriptor> d = find(outer, kind);
    // options that any group's requests carry (DeleteOptions, as client-go sends it with
    // a DELETE's body) are meta/v1's, whatever apiVersion they name
    return d.isPresent() ? d : find("Meta", kind);
  }

  private static Optional<Descriptor> find(String outer, String kind) {
    try {
      Class<?> c = Class.forName("io.kubernetes.client.proto." + outer);
      FileDescriptor file = (FileDescriptor) c.getMethod("getDescriptor").invoke(null);
      return Optional.ofNullable(file.findMessageTypeByName(kind));
    } catch (ReflectiveOperationException | ClassCastException e) {
      return Optional.empty();
    }
  }

  private static String capitalized(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  private static JsonNode message(Message m) {
    String type = m.getDescriptorForType().getFullName();
    switch (type) {
      case "k8s.io.apimachinery.pkg.apis.meta.v1.Time":
        return NODES.textNode(
            Instant.ofEpochSecond(longField(m, "seconds"))
                .truncatedTo(ChronoUnit.SECONDS)
                .toString());
      case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime":
        return NODES.textNode(
            Instant.ofEpochSecond(longField(m, "seconds"), longField(m, "nanos"))
                .truncatedTo(ChronoUnit.MICROS)
                .toString());
      case "k8s.io.apimachinery.pkg.apis.meta.v1.Duration":
        return NODES.textNode(longField(m, "duration") / 1_000_000_000L + "s");
      case "k8s.io.apimachinery.pkg.api.resource.Quantity":
        return NODES.textNode(String.valueOf(value(m, "string")));
      case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
        return longField(m, "type") == 1
            ? NODES.textNode(String.valueOf(value(m, "strVal")))
            : NODES.numberNode(longField(m, "intVal"));
      case "k8s.io.apimachinery.pkg.runtime.RawExtension":
      case "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1":
      case "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON":
        return raw((ByteString) value(m, "raw"));
      default:
        ObjectNode out = NODES.objectNode();
        for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
          out.set(e.getKey().getName(), field(e.getKey(), e.getValue()));
        }
        return out;
    }
  }

  private static JsonNode field(FieldDescriptor f, Object value) {
    if (f.isMapField()) {
      ObjectNode map = NODES.objectNode();
      for (Object entry : (List<?>) value) {
        Message e = (Message) entry;
        FieldDescriptor k = e.getDescriptorForType().findFieldByName("key");
        FieldDescriptor v = e.getDescriptorForType().findFieldByName("value");
        map.set(String.valueOf(e.getField(k)), single(v, e.getField(v)));
      }
      return map;
    }
    if (f.isRepeated()) {
      ArrayNode list = NODES.arrayNode();
      for (Object item : (List<?>) value) {
        list.add(single(f, item));
      }
      return list;
    }
    return single(f, value);
  }

  private static JsonNode single(FieldDescriptor f, Object value) {
    return switch (f.getJavaType()) {
      case MESSAGE -> message((Message) value);
      case BYTE_STRING ->
          NODES.textNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
      case INT -> NODES.numberNode((Integer) value);
      case LONG -> NODES.numberNode((Long) value);
      case BOOLEAN -> NODES.booleanNode((Boolean) value);
      case DOUBLE -> NODES.numberNode((Double) value);
      case FLOAT -> NODES.numberNode((Float) value);
      default -> NODES.textNode(String.valueOf(value));
    };
  }

  private static JsonNode raw(ByteString bytes) {
    if (bytes == null || bytes.isEmpty()) {
      return NODES.nullNode();
    }
    try {
      return MAPPER.readTree(bytes.toByteArray());
    } catch (IOException e) {
      return NODES.textNode(bytes.toStringUtf8());
    }
  }

  private static Object value(Message m, String name) {
    FieldDescriptor f = m.getDescriptorForType().findFieldByName(name);
    return f == null ? null : m.getField(f);
  }

  private static long longField(Message m, String name) {
    Object v = value(m, name);
    return v instanceof Number n ? n.longValue() : 0;
  }
}
