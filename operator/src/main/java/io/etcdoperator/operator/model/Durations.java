package io.etcdoperator.operator.model;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as the API writes them: {@code 7d}, {@code 36h}, {@code 1h30m}, {@code 45s}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("([0-9]+)(d|h|m|s)");

  private Durations() {}

  /** The duration; empty when blank or unreadable. */
  public static Optional<Duration> parse(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    Matcher m = PART.matcher(text);
    Duration d = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        return Optional.empty();
      }
      long n = Long.parseLong(m.group(1));
      d =
          d.plus(
              switch (m.group(2)) {
                case "d" -> Duration.ofDays(n);
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
              });
      end = m.end();
    }
    return end == text.length() && end > 0 ? Optional.of(d) : Optional.empty();
  }

  /** As the API would write it back: {@code 1h30m}, {@code 45s}, {@code 0s}. */
  public static String format(Duration d) {
    long s = d.getSeconds();
    if (s == 0) {
      return "0s";
    }
    StringBuilder out = new StringBuilder();
    long days = s / 86400;
    long hours = s % 86400 / 3600;
    long minutes = s % 3600 / 60;
    long seconds = s % 60;
    if (days > 0) {
      out.append(days).append('d');
    }
    if (hours > 0) {
      out.append(hours).append('h');
    }
    if (minutes > 0) {
      out.append(minutes).append('m');
    }
    if (seconds > 0) {
      out.append(seconds).append('s');
    }
    return out.toString();
  }
}
