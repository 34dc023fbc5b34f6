package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CEL rules of a CRD's {@code x-kubernetes-validations}, compiled and evaluated with the CEL
 * reference implementation for Java ({@code dev.cel:cel}), as the API server does: {@code self} is
 * the value of the schema node that carries the rule and, on an update, {@code oldSelf} its stored
 * value; a rule that reads {@code oldSelf} (a transition rule) is evaluated only on an update that
 * had the value before.
 *
 * <p>Lenient where the API server is stricter: {@code self} and {@code oldSelf} are declared {@code
 * dyn}, not typed from the schema, so a rule that names a field the schema lacks compiles here (it
 * is a syntax or function error that fails to compile); Kubernetes' CEL libraries (quantity, url,
 * ip, the extended string functions) are not declared; cost limits are not enforced.
 */
public final class CelRules {
  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("self", SimpleType.DYN)
          .addVar("oldSelf", SimpleType.DYN)
          .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();
  private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();

  private CelRules() {}

  /** A rule that does not compile: the API server refuses the CRD that carries it. */
  public static final class CompileError extends Exception {
    CompileError(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Compiles a rule; throws what the compiler says when it does not compile. */
  public static CelAbstractSyntaxTree compile(String rule) throws CompileError {
    try {
      return COMPILER.compile(rule).getAst();
    } catch (CelValidationException e) {
      throw new CompileError("compilation failed: " + e.getMessage(), e);
    }
  }

  /** Whether the rule reads {@code oldSelf}. */
  public static boolean isTransition(String rule) {
    return rule.matches("(?s).*\\boldSelf\\b.*");
  }

  /**
   * Evaluates a rule; true when it holds. A rule that does not evaluate to a boolean, or fails (no
   * such key), is a failure as on the API server.
   */
  public static boolean holds(String rule, JsonNode self, JsonNode oldSelf) throws CompileError {
    CelRuntime.Program program = PROGRAMS.get(rule);
    if (program == null) {
      try {
        program = RUNTIME.createProgram(compile(rule));
      } catch (CelEvaluationException e) {
        throw new CompileError(e.getMessage(), e);
      }
      PROGRAMS.put(rule, program);
    }
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("self", value(self));
    if (oldSelf != null) {
      vars.put("oldSelf", value(oldSelf));
    }
    try {
      return Boolean.TRUE.equals(program.eval(vars));
    } catch (CelEvaluationException e) {
      return false;
    }
  }

  /** A JSON value as CEL sees it: maps, lists, int64, double, string, bool. */
  static Object value(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return dev.cel.common.values.NullValue.NULL_VALUE;
    }
    if (n.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        if (!f.getValue().isNull()) {
          m.put(f.getKey(), value(f.getValue()));
        }
      }
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      n.forEach(x -> l.add(value(x)));
      return l;
    }
    if (n.isIntegralNumber()) {
      return n.asLong();
    }
    if (n.isNumber()) {
      return n.asDouble();
    }
    if (n.isBoolean()) {
      return n.asBoolean();
    }
    return n.asText();
  }
}
