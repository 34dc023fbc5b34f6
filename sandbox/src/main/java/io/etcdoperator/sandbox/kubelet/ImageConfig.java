package io.etcdoperator.sandbox.kubelet;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a Dockerfile's final stage says about the image it builds, as far as running it goes: the
 * entry point and command (exec form: JSON arrays), the environment, the user, and which file of
 * the build context each {@code COPY} puts where. Continuation lines are joined; comments and other
 * instructions are skipped; {@code COPY --from=...} (files of another stage) is left out.
 *
 * @param entrypoint ENTRYPOINT's words
 * @param cmd CMD's words (the default arguments)
 * @param env ENV's variables, in order
 * @param user USER, e.g. {@code 65532:65532}, or "" (root)
 * @param copies the image's path to the build context's path, for every COPY of the context
 */
public record ImageConfig(
    List<String> entrypoint,
    List<String> cmd,
    Map<String, String> env,
    String user,
    Map<String, String> copies) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reads a Dockerfile; only its last stage counts. */
  public static ImageConfig parse(String dockerfile) {
    List<String> entrypoint = List.of();
    List<String> cmd = List.of();
    Map<String, String> env = new LinkedHashMap<>();
    String user = "";
    Map<String, String> copies = new LinkedHashMap<>();
    for (String line : instructions(dockerfile)) {
      String[] parts = line.split("\\s+", 2);
      String keyword = parts[0].toUpperCase();
      String rest = parts.length > 1 ? parts[1].trim() : "";
      switch (keyword) {
        case "FROM" -> {
          entrypoint = List.of();
          cmd = List.of();
          env.clear();
          user = "";
          copies.clear();
        }
        case "ENTRYPOINT" -> entrypoint = words(rest, keyword);
        case "CMD" -> cmd = words(rest, keyword);
        case "USER" -> user = rest;
        case "ENV" -> env.putAll(variables(rest));
        case "COPY" -> {
          List<String> args = new ArrayList<>(List.of(rest.split("\\s+")));
          if (args.stream().anyMatch(a -> a.startsWith("--from="))) {
            continue;
          }
          args.removeIf(a -> a.startsWith("--"));
          if (args.size() == 2) {
            copies.put(args.get(1), args.get(0));
          }
        }
        default -> {
          // LABEL, EXPOSE, RUN, ...: nothing that changes how the container starts here
        }
      }
    }
    return new ImageConfig(entrypoint, cmd, Map.copyOf(env), user, Map.copyOf(copies));
  }

  /** The instructions, continuation lines joined, comments and blank lines dropped. */
  private static List<String> instructions(String dockerfile) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : dockerfile.split("\n")) {
      String line = raw.strip();
      if (line.startsWith("#") || (line.isEmpty() && current.isEmpty())) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      if (!current.toString().isBlank()) {
        out.add(current.toString().strip());
      }
      current.setLength(0);
    }
    return out;
  }

  private static List<String> words(String json, String keyword) {
    try {
      return JSON.readValue(json, new TypeReference<List<String>>() {});
    } catch (Exception e) {
      throw new IllegalArgumentException(
          keyword + " must be in exec form (a JSON array of strings): " + json, e);
    }
  }

  /** {@code K=V K2="V 2"} or the old {@code K V} form. */
  private static Map<String, String> variables(String rest) {
    Map<String, String> out = new LinkedHashMap<>();
    if (!rest.contains("=")) {
      String[] kv = rest.split("\\s+", 2);
      out.put(kv[0], kv.length > 1 ? kv[1] : "");
      return out;
    }
    int i = 0;
    while (i < rest.length()) {
      while (i < rest.length() && Character.isWhitespace(rest.charAt(i))) {
        i++;
      }
      int eq = rest.indexOf('=', i);
      if (eq < 0) {
        break;
      }
      String key = rest.substring(i, eq);
      StringBuilder value = new StringBuilder();
      int j = eq + 1;
      boolean quoted = j < rest.length() && rest.charAt(j) == '"';
      if (quoted) {
        j++;
        while (j < rest.length() && rest.charAt(j) != '"') {
          value.append(rest.charAt(j++));
        }
        j++;
      } else {
        while (j < rest.length() && !Character.isWhitespace(rest.charAt(j))) {
          value.append(rest.charAt(j++));
        }
      }
      out.put(key, value.toString());
      i = j;
    }
    return out;
  }
}
