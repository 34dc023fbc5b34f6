package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The DefaultTolerationSeconds admission plugin: a pod created without a toleration of the {@code
 * node.kubernetes.io/not-ready} (or {@code unreachable}) NoExecute taint gets one, operator Exists,
 * with the configured tolerationSeconds (Kubernetes: 300), so that its node's loss evicts it only
 * after that time. A toleration with an empty key or effect counts as tolerating, as in the plugin.
 */
public final class DefaultTolerations implements AdmissionPlugin {
  static final String NOT_READY = "node.kubernetes.io/not-ready";
  static final String UNREACHABLE = "node.kubernetes.io/unreachable";

  private volatile long seconds = 300;

  /** The tolerationSeconds new pods get. */
  public void setSeconds(long seconds) {
    this.seconds = seconds;
  }

  @Override
  public MockResponse admit(AdmissionRequest a) throws Exception {
    if (a.builtInObject() && a.old() == null && a.core("pods")) {
      apply(a.object(), seconds);
    }
    return null;
  }

  static void apply(ObjectNode pod, long seconds) {
    if (!pod.path("spec").isObject()) {
      return;
    }
    ObjectNode spec = (ObjectNode) pod.get("spec");
    ArrayNode tolerations =
        spec.path("tolerations").isArray()
            ? (ArrayNode) spec.get("tolerations")
            : spec.putArray("tolerations");
    for (String key : new String[] {NOT_READY, UNREACHABLE}) {
      if (!tolerates(tolerations, key)) {
        tolerations
            .addObject()
            .put("key", key)
            .put("operator", "Exists")
            .put("effect", "NoExecute")
            .put("tolerationSeconds", seconds);
      }
    }
  }

  private static boolean tolerates(ArrayNode tolerations, String key) {
    for (JsonNode t : tolerations) {
      String k = t.path("key").asText("");
      String effect = t.path("effect").asText("");
      if ((k.equals(key) || k.isEmpty()) && (effect.equals("NoExecute") || effect.isEmpty())) {
        return true;
      }
    }
    return false;
  }
}
