package io.etcdoperator.sandbox.kubelet;

import java.util.Map;

/**
 * Kubernetes' {@code $(VAR)} expansion in env values, command and args: a reference to a defined
 * variable is replaced by its value, {@code $$} is an escaped {@code $}, and a reference to an
 * undefined variable is left as written.
 */
public final class EnvExpansion {
  private EnvExpansion() {}

  public static String expand(String input, Map<String, String> vars) {
    if (input == null || input.indexOf('$') < 0) {
      return input;
    }
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < input.length()) {
      char c = input.charAt(i);
      if (c != '$' || i + 1 >= input.length()) {
        out.append(c);
        i++;
        continue;
      }
      char n = input.charAt(i + 1);
      if (n == '$') {
        out.append('$');
        i += 2;
      } else if (n == '(') {
        int close = input.indexOf(')', i + 2);
        if (close < 0) {
          out.append(input, i, input.length());
          break;
        }
        String name = input.substring(i + 2, close);
        String value = vars.get(name);
        out.append(value != null ? value : input.substring(i, close + 1));
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
