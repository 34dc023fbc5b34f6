package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What the API server checks of a CustomResourceDefinition that matters here: every CEL rule of
 * every served version's schema compiles (the server refuses the CRD otherwise, naming the rule).
 */
public final class CrdValidation {
  private CrdValidation() {}

  public static List<FieldError> validate(JsonNode crd) {
    List<FieldError> e = new ArrayList<>();
    int i = 0;
    for (JsonNode v : crd.path("spec").path("versions")) {
      String base = "spec.versions[" + i++ + "].schema.openAPIV3Schema";
      for (String[] rule :
          StructuralSchema.allRules(v.path("schema").path("openAPIV3Schema"), "")) {
        try {
          CelRules.compile(rule[1]);
        } catch (CelRules.CompileError ce) {
          e.add(
              FieldError.invalid(
                  base + (rule[0].isEmpty() ? "" : "." + rule[0]) + ".x-kubernetes-validations",
                  rule[1],
                  ce.getMessage()));
        }
      }
    }
    return e;
  }
}
