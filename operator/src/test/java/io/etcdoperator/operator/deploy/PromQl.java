package io.etcdoperator.operator.deploy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression reads, found by a small tokenizer rather than a regular
 * expression over the whole text: it skips string literals, label matchers ({@code {...}}), ranges
 * and subqueries ({@code [...]}), the label lists of {@code by}, {@code without}, {@code on},
 * {@code ignoring}, {@code group_left} and {@code group_right}, numbers and durations, Grafana's
 * {@code $variables}, and the keywords; an identifier followed by {@code (} must be a PromQL
 * function or aggregation (anything else is refused, so that a misspelt function is not taken for a
 * metric), and so is an aggregation followed by {@code by} or {@code without}. Every other
 * identifier is a metric name.
 */
public final class PromQl {
  static final Set<String> FUNCTIONS =
      Set.of(
          "abs",
          "absent",
          "absent_over_time",
          "acos",
          "acosh",
          "asin",
          "asinh",
          "atan",
          "atanh",
          "avg_over_time",
          "ceil",
          "changes",
          "clamp",
          "clamp_max",
          "clamp_min",
          "cos",
          "cosh",
          "count_over_time",
          "day_of_month",
          "day_of_week",
          "day_of_year",
          "days_in_month",
          "deg",
          "delta",
          "deriv",
          "double_exponential_smoothing",
          "end",
          "exp",
          "floor",
          "histogram_avg",
          "histogram_count",
          "histogram_fraction",
          "histogram_quantile",
          "histogram_stddev",
          "histogram_stdvar",
          "histogram_sum",
          "holt_winters",
          "hour",
          "idelta",
          "increase",
          "info",
          "irate",
          "label_join",
          "label_replace",
          "last_over_time",
          "ln",
          "log10",
          "log2",
          "mad_over_time",
          "max_over_time",
          "min_over_time",
          "minute",
          "month",
          "pi",
          "predict_linear",
          "present_over_time",
          "quantile_over_time",
          "rad",
          "rate",
          "resets",
          "round",
          "scalar",
          "sgn",
          "sin",
          "sinh",
          "sort",
          "sort_by_label",
          "sort_by_label_desc",
          "sort_desc",
          "sqrt",
          "start",
          "stddev_over_time",
          "stdvar_over_time",
          "sum_over_time",
          "tan",
          "tanh",
          "time",
          "timestamp",
          "vector",
          "year",
          // aggregations
          "avg",
          "bottomk",
          "count",
          "count_values",
          "group",
          "limit_ratio",
          "limitk",
          "max",
          "min",
          "quantile",
          "stddev",
          "stdvar",
          "sum",
          "topk");

  /** Keywords followed by a list of label names in parentheses. */
  static final Set<String> LABEL_LISTS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

  static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "inf", "nan");

  private PromQl() {}

  /** The metric names {@code expr} reads, sorted. */
  public static Set<String> metricNames(String expr) {
    Set<String> names = new TreeSet<>();
    int i = 0;
    int n = expr.length();
    while (i < n) {
      char c = expr.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipString(expr, i);
      } else if (c == '{') {
        i = skipBalanced(expr, i, '{', '}');
      } else if (c == '[') {
        i = skipBalanced(expr, i, '[', ']');
      } else if (c == '#') {
        while (i < n && expr.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '$') {
        i = skipWord(expr, i + 1);
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && isDigit(expr, i + 1))) {
        // numbers, hex, exponents, durations (5m, 1h30m): the word that starts with a digit
        i = skipNumber(expr, i);
      } else if (isIdentStart(c)) {
        int end = skipWord(expr, i);
        String word = expr.substring(i, end);
        int next = skipSpace(expr, end);
        boolean call = next < n && expr.charAt(next) == '(';
        // an aggregation with its grouping first: sum by (a) (x), max without (b) (y)
        String following = expr.substring(next, skipWord(expr, next));
        boolean grouped =
            FUNCTIONS.contains(word) && (following.equals("by") || following.equals("without"));
        String lower = word.toLowerCase(java.util.Locale.ROOT);
        if (LABEL_LISTS.contains(lower)) {
          i = call ? skipBalanced(expr, next, '(', ')') : end;
        } else if (grouped) {
          i = end;
        } else if (call) {
          if (!FUNCTIONS.contains(word)) {
            throw new IllegalArgumentException(
                "not a PromQL function: " + word + " in: " + expr.strip());
          }
          i = end;
        } else {
          if (!KEYWORDS.contains(lower)) {
            names.add(word);
          }
          i = end;
        }
      } else {
        i++;
      }
    }
    return names;
  }

  /**
   * The metric names of Grafana's {@code label_values(metric{...}, label)} (of the first argument;
   * {@code label_values(label)} reads no metric).
   */
  public static Set<String> metricNamesOfLabelValues(String query) {
    String q = query.strip();
    if (!q.startsWith("label_values(") || !q.endsWith(")")) {
      throw new IllegalArgumentException("not label_values(...): " + query);
    }
    String args = q.substring("label_values(".length(), q.length() - 1);
    int comma = topLevelComma(args);
    return comma < 0 ? Set.of() : metricNames(args.substring(0, comma));
  }

  /** Names some expression reads that are not among {@code scraped}, sorted. */
  public static List<String> missing(Collection<String> expressions, Set<String> scraped) {
    Set<String> missing = new TreeSet<>();
    for (String e : expressions) {
      for (String name : metricNames(e)) {
        if (!scraped.contains(name)) {
          missing.add(name);
        }
      }
    }
    return new ArrayList<>(missing);
  }

  /**
   * The names of the series in a Prometheus text exposition (every sample line's name: {@code
   * _bucket}, {@code _count}, {@code _sum}, {@code _total} as they are exposed).
   */
  public static Set<String> seriesNames(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
        end++;
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  private static int topLevelComma(String s) {
    int depth = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipString(s, i) - 1;
      } else if (c == '{' || c == '(' || c == '[') {
        depth++;
      } else if (c == '}' || c == ')' || c == ']') {
        depth--;
      } else if (c == ',' && depth == 0) {
        return i;
      }
    }
    return -1;
  }

  private static int skipString(String s, int start) {
    char quote = s.charAt(start);
    int i = start + 1;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\\' && quote != '`') {
        i += 2;
      } else if (c == quote) {
        return i + 1;
      } else {
        i++;
      }
    }
    throw new IllegalArgumentException("unterminated string in: " + s.strip());
  }

  private static int skipBalanced(String s, int start, char open, char close) {
    int depth = 0;
    int i = start;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipString(s, i);
        continue;
      }
      if (c == open) {
        depth++;
      } else if (c == close && --depth == 0) {
        return i + 1;
      }
      i++;
    }
    throw new IllegalArgumentException("unbalanced " + open + " in: " + s.strip());
  }

  private static int skipWord(String s, int start) {
    int i = start;
    while (i < s.length() && isIdentPart(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int skipNumber(String s, int start) {
    int i = start;
    while (i < s.length() && (isIdentPart(s.charAt(i)) || s.charAt(i) == '.')) {
      i++;
    }
    return i;
  }

  private static int skipSpace(String s, int start) {
    int i = start;
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static boolean isDigit(String s, int i) {
    return Character.isDigit(s.charAt(i));
  }

  private static boolean isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }

  private static boolean isIdentPart(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9');
  }
}
