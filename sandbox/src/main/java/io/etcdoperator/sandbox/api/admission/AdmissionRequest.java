package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.BuiltInTypes;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import java.util.List;

/**
 * A write on its way through the {@link AdmissionChain}: who writes what where, the object as the
 * plugins so far left it, the stored one (null on a create), and the field errors found so far. The
 * type is looked up when a plugin first asks for it.
 */
public final class AdmissionRequest {
  private final Identity user;
  private final RequestInfo info;
  private final ApiPath api;
  private final ObjectNode object;
  private final JsonNode old;
  private final String name;
  private final ServedTypes types;
  private ResourceType type;
  private boolean typeResolved;
  private List<FieldError> errors = List.of();

  AdmissionRequest(
      Identity user,
      RequestInfo info,
      ApiPath api,
      ObjectNode object,
      JsonNode old,
      ServedTypes types) {
    this.user = user;
    this.info = info;
    this.api = api;
    this.object = object;
    this.old = old;
    this.types = types;
    this.name = object.path("metadata").path("name").asText(api.name() == null ? "" : api.name());
  }

  private String fieldManager;

  /** The write's {@code fieldManager} parameter, or null. */
  public String fieldManager() {
    return fieldManager;
  }

  void fieldManager(String name) {
    this.fieldManager = name;
  }

  public Identity user() {
    return user;
  }

  public RequestInfo info() {
    return info;
  }

  public ApiPath api() {
    return api;
  }

  /** The object to store, which plugins may change. */
  public ObjectNode object() {
    return object;
  }

  /** The stored object on an update, null on a create. */
  public JsonNode old() {
    return old;
  }

  /** The object's name, as sent (before any plugin ran). */
  public String name() {
    return name;
  }

  /** The served type written to, or null. */
  public ResourceType type() throws Exception {
    if (!typeResolved) {
      type = types.type(api);
      typeResolved = true;
    }
    return type;
  }

  /** A built-in object itself (not one of its subresources). */
  public boolean builtInObject() throws Exception {
    return builtIn() && api.subresource() == null;
  }

  /** Whether the type is a custom resource's. */
  public boolean customResource() throws Exception {
    return type() != null && !builtIn();
  }

  private boolean builtIn() throws Exception {
    return type() != null && BuiltInTypes.ALL.contains(type());
  }

  /** Whether the write is to the core group's resource {@code plural}. */
  public boolean core(String plural) {
    return api.group().isEmpty() && api.plural().equals(plural);
  }

  public List<FieldError> errors() {
    return errors;
  }

  /** Replaces the errors found so far. */
  public void errors(List<FieldError> errors) {
    this.errors = errors;
  }
}
