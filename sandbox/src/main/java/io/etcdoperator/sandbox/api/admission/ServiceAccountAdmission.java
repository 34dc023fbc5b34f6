package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.api.Responses;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.etcdoperator.sandbox.api.store.Store;
import io.fabric8.mockwebserver.http.MockResponse;
import java.security.SecureRandom;

/**
 * The ServiceAccount admission plugin, on pods being created: a pod that names no ServiceAccount
 * gets {@code default}; the ServiceAccount must exist (else 403, "error looking up service
 * account"; the sandbox makes a namespace's {@code default} with the namespace, see {@link
 * io.etcdoperator.sandbox.api.handlers.WriteHandler}); and unless the pod or its ServiceAccount
 * sets {@code automountServiceAccountToken: false}, the pod gets the projected volume {@code
 * kube-api-access-<random>} (a ServiceAccount token that expires after 3607 s, the namespace's
 * {@code kube-root-ca.crt} ConfigMap's {@code ca.crt}, the namespace from the downward API),
 * mounted read-only at {@value #MOUNT_PATH} in every container and init container that mounts
 * nothing there yet. The kubelet fills the volume in.
 */
public final class ServiceAccountAdmission implements AdmissionPlugin {
  /** Where every container finds its token, CA and namespace, as in-cluster clients look. */
  public static final String MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

  /** The ConfigMap of the cluster's CA the root CA publisher keeps in every namespace. */
  public static final String ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";

  static final long EXPIRATION_SECONDS = 3607;
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Store store;
  private final ObjectMapper mapper = new ObjectMapper();

  public ServiceAccountAdmission(Store store) {
    this.store = store;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    if (!a.builtInObject() || a.old() != null || !a.core("pods")) {
      return null;
    }
    ObjectNode pod = a.object();
    if (!pod.path("spec").isObject()) {
      return null;
    }
    ObjectNode spec = (ObjectNode) pod.get("spec");
    String ns =
        a.api().namespace() != null
            ? a.api().namespace()
            : pod.path("metadata").path("namespace").asText("default");
    String name = spec.path("serviceAccountName").asText("");
    if (name.isEmpty()) {
      name = spec.path("serviceAccount").asText("");
    }
    if (name.isEmpty()) {
      name = "default";
    }
    spec.put("serviceAccountName", name);
    MockResponse r = store.get("/api/v1/namespaces/" + ns + "/serviceaccounts/" + name);
    if (r.code() != 200) {
      RequestInfo info = a.info();
      RequestInfo named =
          new RequestInfo(info.verb(), true, "", "pods", null, a.name(), ns, info.path());
      return Responses.forbidden(
          named,
          "error looking up service account "
              + ns
              + "/"
              + name
              + ": serviceaccount \""
              + name
              + "\" not found");
    }
    JsonNode account = mapper.readTree(r.getBody().readUtf8());
    JsonNode podSays = spec.path("automountServiceAccountToken");
    boolean mount =
        podSays.isBoolean()
            ? podSays.asBoolean()
            : account.path("automountServiceAccountToken").asBoolean(true);
    if (mount && !mountsAlready(spec)) {
      String volume = "kube-api-access-" + suffix();
      addVolume(spec, volume);
      for (String kind : new String[] {"initContainers", "containers"}) {
        for (JsonNode c : spec.path(kind)) {
          if (c.isObject() && !mounts((ObjectNode) c)) {
            ArrayNode mounts =
                c.path("volumeMounts").isArray()
                    ? (ArrayNode) c.get("volumeMounts")
                    : ((ObjectNode) c).putArray("volumeMounts");
            mounts
                .addObject()
                .put("name", volume)
                .put("readOnly", true)
                .put("mountPath", MOUNT_PATH);
          }
        }
      }
    }
    return null;
  }

  private static void addVolume(ObjectNode spec, String name) {
    ArrayNode volumes =
        spec.path("volumes").isArray() ? (ArrayNode) spec.get("volumes") : spec.putArray("volumes");
    ObjectNode projected = volumes.addObject().put("name", name).putObject("projected");
    projected.put("defaultMode", 420);
    ArrayNode sources = projected.putArray("sources");
    sources
        .addObject()
        .putObject("serviceAccountToken")
        .put("expirationSeconds", EXPIRATION_SECONDS)
        .put("path", "token");
    ObjectNode cm = sources.addObject().putObject("configMap").put("name", ROOT_CA_CONFIG_MAP);
    cm.putArray("items").addObject().put("key", "ca.crt").put("path", "ca.crt");
    sources
        .addObject()
        .putObject("downwardAPI")
        .putArray("items")
        .addObject()
        .put("path", "namespace")
        .putObject("fieldRef")
        .put("apiVersion", "v1")
        .put("fieldPath", "metadata.namespace");
  }

  /** Whether some container already mounts a volume at the token's path. */
  private static boolean mountsAlready(ObjectNode spec) {
    for (String kind : new String[] {"initContainers", "containers"}) {
      for (JsonNode c : spec.path(kind)) {
        if (c.isObject() && mounts((ObjectNode) c)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean mounts(ObjectNode container) {
    for (JsonNode m : container.path("volumeMounts")) {
      if (MOUNT_PATH.equals(m.path("mountPath").asText())) {
        return true;
      }
    }
    return false;
  }

  private static String suffix() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      b.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }
}
