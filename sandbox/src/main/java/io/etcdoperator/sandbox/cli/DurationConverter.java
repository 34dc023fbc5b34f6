package io.etcdoperator.sandbox.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code 90s}, {@code 5m}, {@code 1h} or ISO-8601 ({@code PT5M}). */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value.trim().toLowerCase();
    try {
      if (v.startsWith("pt")) {
        return Duration.parse(value.trim());
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      return switch (v.charAt(v.length() - 1)) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> throw new TypeConversionException("use a number and s, m or h, e.g. 90s");
      };
    } catch (RuntimeException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration: use e.g. 90s, 5m or 1h");
    }
  }
}
