package io.etcdoperator.sandbox.controller;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;

/**
 * Label selectors as the API evaluates them: matchLabels and matchExpressions (In, NotIn, Exists,
 * DoesNotExist) all hold; an empty selector selects everything, an absent one nothing.
 */
public final class Selectors {
  private Selectors() {}

  /** Whether the selector (JSON; missing or null: nothing) selects the labels (JSON object). */
  public static boolean matches(JsonNode selector, JsonNode labels) {
    if (selector == null || selector.isMissingNode() || selector.isNull()) {
      return false;
    }
    LabelSelector s = Serialization.jsonMapper().convertValue(selector, LabelSelector.class);
    @SuppressWarnings("unchecked")
    Map<String, String> l =
        labels == null || !labels.isObject()
            ? Map.of()
            : Serialization.jsonMapper().convertValue(labels, Map.class);
    return matches(s, l);
  }

  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> l = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(l.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!requirement(r.getKey(), r.getOperator(), r.getValues(), l)) {
          return false;
        }
      }
    }
    return true;
  }

  /** A node selector requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt) on node labels. */
  public static boolean matches(NodeSelectorRequirement r, Map<String, String> labels) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    String v = l.get(r.getKey());
    return switch (r.getOperator()) {
      case "Gt", "Lt" -> {
        if (v == null || r.getValues() == null || r.getValues().size() != 1) {
          yield false;
        }
        try {
          long have = Long.parseLong(v);
          long want = Long.parseLong(r.getValues().get(0));
          yield r.getOperator().equals("Gt") ? have > want : have < want;
        } catch (NumberFormatException e) {
          yield false;
        }
      }
      default -> requirement(r.getKey(), r.getOperator(), r.getValues(), l);
    };
  }

  private static boolean requirement(
      String key, String operator, List<String> values, Map<String, String> labels) {
    List<String> vs = values == null ? List.of() : values;
    boolean has = labels.containsKey(key);
    return switch (operator) {
      case "In" -> has && vs.contains(labels.get(key));
      case "NotIn" -> !has || !vs.contains(labels.get(key));
      case "Exists" -> has;
      case "DoesNotExist" -> !has;
      default -> false;
    };
  }
}
