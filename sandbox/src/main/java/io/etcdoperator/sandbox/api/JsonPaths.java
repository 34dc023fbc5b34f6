package io.etcdoperator.sandbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON paths printer columns use: {@code .a.b.c} and {@code .a[?(@.k=="v")].b} (a filter picks
 * the first matching element of a list), and {@code .a[0].b}.
 */
final class JsonPaths {
  private static final Pattern FILTER =
      Pattern.compile("(\\w+)\\[\\?\\(@\\.(\\w+)==[\"'](.*?)[\"']\\)\\]");
  private static final Pattern INDEX = Pattern.compile("(\\w+)\\[(\\d+)\\]");

  private JsonPaths() {}

  static JsonNode eval(JsonNode root, String path) {
    String p = path.startsWith(".") ? path.substring(1) : path;
    JsonNode n = root;
    for (String part : split(p)) {
      Matcher f = FILTER.matcher(part);
      Matcher i = INDEX.matcher(part);
      if (f.matches()) {
        JsonNode list = n.path(f.group(1));
        JsonNode found = MissingNode.getInstance();
        for (JsonNode e : list) {
          if (e.path(f.group(2)).asText().equals(f.group(3))) {
            found = e;
            break;
          }
        }
        n = found;
      } else if (i.matches()) {
        n = n.path(i.group(1)).path(Integer.parseInt(i.group(2)));
      } else {
        n = n.path(part);
      }
    }
    return n;
  }

  /** Splits on dots outside brackets. */
  private static List<String> split(String p) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    StringBuilder cur = new StringBuilder();
    for (char c : p.toCharArray()) {
      if (c == '[') {
        depth++;
      } else if (c == ']') {
        depth--;
      }
      if (c == '.' && depth == 0) {
        parts.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (cur.length() > 0) {
      parts.add(cur.toString());
    }
    return parts;
  }
}
