package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One validation error of a field, as the API server's {@code field.Error} renders it: {@code
 * spec.replicas: Invalid value: -1: must be greater than or equal to 0}.
 *
 * @param type the error type ({@link Type})
 * @param field the field's path, e.g. {@code spec.template.spec.containers[0].name}
 * @param value the bad value as the server quotes it, or null when it quotes none
 * @param detail what is wrong, or ""
 */
public record FieldError(Type type, String field, String value, String detail) {

  /**
   * The error types and their words, as in {@code k8s.io/apimachinery/pkg/util/validation/field}.
   */
  public enum Type {
    REQUIRED("Required value", "FieldValueRequired"),
    INVALID("Invalid value", "FieldValueInvalid"),
    NOT_SUPPORTED("Unsupported value", "FieldValueNotSupported"),
    FORBIDDEN("Forbidden", "FieldValueForbidden"),
    TOO_LONG("Too long", "FieldValueTooLong"),
    DUPLICATE("Duplicate value", "FieldValueDuplicate"),
    NOT_FOUND("Not found", "FieldValueNotFound"),
    TYPE_INVALID("Invalid value", "FieldValueTypeInvalid");

    final String words;
    final String reason;

    Type(String words, String reason) {
      this.words = words;
      this.reason = reason;
    }
  }

  public static FieldError required(String field, String detail) {
    return new FieldError(Type.REQUIRED, field, null, detail);
  }

  public static FieldError invalid(String field, JsonNode value, String detail) {
    return new FieldError(Type.INVALID, field, quote(value), detail);
  }

  public static FieldError invalid(String field, String value, String detail) {
    return new FieldError(Type.INVALID, field, quote(value), detail);
  }

  public static FieldError notSupported(String field, JsonNode value, List<String> supported) {
    return new FieldError(
        Type.NOT_SUPPORTED,
        field,
        quote(value),
        "supported values: "
            + supported.stream().map(FieldError::quote).collect(Collectors.joining(", ")));
  }

  public static FieldError forbidden(String field, String detail) {
    return new FieldError(Type.FORBIDDEN, field, null, detail);
  }

  public static FieldError tooLong(String field, int max) {
    return new FieldError(Type.TOO_LONG, field, null, "may not be more than " + max + " bytes");
  }

  public static FieldError duplicate(String field, String value) {
    return new FieldError(Type.DUPLICATE, field, quote(value), "");
  }

  public static FieldError notFound(String field, String value) {
    return new FieldError(Type.NOT_FOUND, field, quote(value), "");
  }

  /** The message of the error without its field ({@code Invalid value: -1: ...}). */
  public String message() {
    StringBuilder b = new StringBuilder(type.words);
    if (value != null) {
      b.append(": ").append(value);
    }
    if (detail != null && !detail.isEmpty()) {
      b.append(": ").append(detail);
    }
    return b.toString();
  }

  /** The whole error, as a Status message lists it. */
  @Override
  public String toString() {
    return field + ": " + message();
  }

  /** The reason of a Status cause. */
  public String reason() {
    return type.reason;
  }

  static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  static String quote(JsonNode v) {
    if (v == null || v.isMissingNode() || v.isNull()) {
      return "null";
    }
    if (v.isTextual()) {
      return quote(v.asText());
    }
    if (v.isNumber() || v.isBoolean()) {
      return v.asText();
    }
    return quote(v.isObject() ? "object" : v.isArray() ? "array" : v.toString());
  }
}
