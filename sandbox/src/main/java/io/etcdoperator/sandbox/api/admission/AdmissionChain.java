package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ResourceType;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.ServedTypes;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RbacAuthorizer;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;

/**
 * Admission of a create or update (also of a patch, once merged, and of a status update): the
 * checks a real API server runs on a write between authorization and storage, as an ordered list of
 * {@link AdmissionPlugin}s. The first refusal ends the write; field errors gathered by the plugins
 * end it after the last one with {@code 422 Invalid}, every error named; else the object, as the
 * plugins left it, is stored.
 *
 * <p>The order, {@link #standard}'s: OwnerReferencesPermissionEnforcement; the defaults of built-in
 * kinds; ServiceAccount; DefaultTolerationSeconds; the validation of built-in kinds;
 * DefaultStorageClass and PersistentVolumeClaimResize; the validation of CRDs; PodSecurity; the
 * schema and CEL rules of custom resources. Each plugin says which writes it applies to; a write to
 * a type the server does not serve, or to a subresource of a built-in kind, meets only the first.
 */
public final class AdmissionChain {
  private final ServedTypes types;
  private final List<AdmissionPlugin> plugins;

  /**
   * What admission made of a write: the object to store (defaults applied, unknown fields pruned),
   * or the refusal.
   */
  public record Result(JsonNode object, MockResponse refusal) {}

  public AdmissionChain(ServedTypes types, List<AdmissionPlugin> plugins) {
    this.types = types;
    this.plugins = List.copyOf(plugins);
  }

  /** The sandbox's plugins, in their order. */
  public static AdmissionChain standard(
      Store store, ServedTypes types, RbacAuthorizer authorizer, DefaultTolerations tolerations) {
    BuiltInAdmission builtIn = new BuiltInAdmission();
    return new AdmissionChain(
        types,
        List.of(
            new OwnerReferencesAdmission(types, authorizer),
            builtIn::defaults,
            new ServiceAccountAdmission(store),
            tolerations,
            BuiltInAdmission::validate,
            new StorageClassAdmission(store),
            BuiltInAdmission::validateCrd,
            new PodSecurityAdmission(store),
            new CustomResourceAdmission(store, types),
            new ManagedFields()));
  }

  /** Admits {@code object}, written by {@code user} to {@code api}, over {@code old} (or null). */
  public Result admit(Identity user, RequestInfo info, ApiPath api, JsonNode object, JsonNode old)
      throws Exception {
    return admit(user, info, api, object, old, null);
  }

  /**
   * As the five-argument {@code admit}, the write naming {@code fieldManager} (its query's {@code
   * fieldManager}, or null).
   */
  public Result admit(
      Identity user,
      RequestInfo info,
      ApiPath api,
      JsonNode object,
      JsonNode old,
      String fieldManager)
      throws Exception {
    if (object == null || !object.isObject()) {
      return new Result(object, null);
    }
    AdmissionRequest request =
        new AdmissionRequest(user, info, api, (ObjectNode) object, old, types);
    request.fieldManager(fieldManager);
    for (AdmissionPlugin plugin : plugins) {
      MockResponse refusal = plugin.admit(request);
      if (refusal != null) {
        return new Result(null, refusal);
      }
    }
    if (!request.errors().isEmpty()) {
      ResourceType type = request.type();
      return new Result(
          null,
          Responses.json(
              422, Invalid.status(type.kind(), type.group(), request.name(), request.errors())));
    }
    return new Result(object, null);
  }
}
