package io.etcdoperator.operator.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A cron schedule as Kubernetes CronJobs read it, in UTC: five fields (minute 0-59, hour 0-23,
 * day of month 1-31, month 1-12 or JAN-DEC, day of week 0-7 or SUN-SAT, 0 and 7 both Sunday), each
 * {@code *}, a value, a range {@code a-b}, a step {@code * /n} or {@code a-b/n}, or a list of those;
 * and the macros {@code @yearly}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code
 * @hourly}. As in cron, when both day fields are restricted a day matches if either does.
 *
 * <p>{@link #next} walks forward a minute at a time but skips whole days and hours that cannot
 * match, so finding the next firing of any valid schedule takes at most a few thousand steps.
 */
public final class Cron {
  private static final Map<String, String> MACROS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");
  private static final String[] MONTHS = {
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
  };
  private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean anyDayOfMonth;
  private final boolean anyDayOfWeek;

  private Cron(String[] f) {
    minutes = field(f[0], 0, 59, null, "minute");
    hours = field(f[1], 0, 23, null, "hour");
    daysOfMonth = field(f[2], 1, 31, null, "day of month");
    months = field(f[3], 1, 12, MONTHS, "month");
    BitSet dow = field(f[4], 0, 7, DAYS, "day of week");
    if (dow.get(7)) {
      dow.set(0);
    }
    daysOfWeek = dow;
    anyDayOfMonth = f[2].startsWith("*");
    anyDayOfWeek = f[4].startsWith("*");
  }

  /** Parses a schedule; throws IllegalArgumentException saying what is wrong. */
  public static Cron parse(String schedule) {
    if (schedule == null || schedule.isBlank()) {
      throw new IllegalArgumentException("schedule is required");
    }
    String s = schedule.trim();
    if (s.startsWith("@every")) {
      throw new IllegalArgumentException(
          "@every expressions are not supported by Kubernetes CronJobs");
    }
    if (s.startsWith("@")) {
      String m = MACROS.get(s.toLowerCase(Locale.ROOT));
      if (m == null) {
        throw new IllegalArgumentException("invalid cron expression: unknown macro " + s);
      }
      s = m;
    }
    String[] fields = s.split("\\s+");
    if (fields.length != 5) {
      throw new IllegalArgumentException(
          "invalid cron expression: expected 5 fields (minute hour day-of-month month"
              + " day-of-week), got "
              + fields.length);
    }
    return new Cron(fields);
  }

  /** Whether a schedule parses, and if not why. */
  public static Optional<String> problem(String schedule) {
    try {
      parse(schedule);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** The first firing strictly after {@code t}, or empty if none within 5 years (Feb 30). */
  public Optional<Instant> next(Instant t) {
    ZonedDateTime z = t.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    ZonedDateTime end = z.plusYears(5);
    while (z.isBefore(end)) {
      if (!months.get(z.getMonthValue()) || !dayMatches(z)) {
        z = z.plusDays(1).truncatedTo(ChronoUnit.DAYS);
      } else if (!hours.get(z.getHour())) {
        z = z.plusHours(1).truncatedTo(ChronoUnit.HOURS);
      } else if (!minutes.get(z.getMinute())) {
        z = z.plusMinutes(1);
      } else {
        return Optional.of(z.toInstant());
      }
    }
    return Optional.empty();
  }

  /**
   * The longest time between two consecutive firings after {@code t}, over the next 100 firings (a
   * weekdays-only schedule: the weekend): how old the newest run may be when the schedule keeps up.
   */
  public Optional<Duration> longestInterval(Instant t) {
    Optional<Instant> a = next(t);
    Duration longest = null;
    for (int i = 0; i < 100 && a.isPresent(); i++) {
      Optional<Instant> b = next(a.get());
      if (b.isEmpty()) {
        break;
      }
      Duration d = Duration.between(a.get(), b.get());
      longest = longest == null || d.compareTo(longest) > 0 ? d : longest;
      a = b;
    }
    return Optional.ofNullable(longest);
  }

  /** The last firing at or before {@code t} and after {@code since}, if any. */
  public Optional<Instant> lastBetween(Instant since, Instant t) {
    Optional<Instant> last = Optional.empty();
    Optional<Instant> n = next(since);
    int steps = 0;
    while (n.isPresent() && !n.get().isAfter(t) && steps++ < 100_000) {
      last = n;
      n = next(n.get());
    }
    return last;
  }

  private boolean dayMatches(ZonedDateTime z) {
    boolean dom = daysOfMonth.get(z.getDayOfMonth());
    boolean dow = daysOfWeek.get(z.getDayOfWeek().getValue() % 7);
    if (anyDayOfMonth || anyDayOfWeek) {
      return dom && dow;
    }
    return dom || dow;
  }

  private static BitSet field(String text, int min, int max, String[] names, String what) {
    BitSet bits = new BitSet(max + 1);
    for (String part : text.split(",")) {
      String range = part;
      int step = 1;
      int slash = part.indexOf('/');
      if (slash >= 0) {
        range = part.substring(0, slash);
        step = number(part.substring(slash + 1), null, 1, max, what + " step");
      }
      int lo;
      int hi;
      if (range.equals("*")) {
        lo = min;
        hi = max;
      } else if (range.contains("-")) {
        String[] ab = range.split("-", 2);
        lo = number(ab[0], names, min, max, what);
        hi = number(ab[1], names, min, max, what);
        if (hi < lo) {
          throw new IllegalArgumentException(
              "invalid cron expression: " + what + " range " + range + " runs backwards");
        }
      } else {
        lo = number(range, names, min, max, what);
        hi = slash >= 0 ? max : lo;
      }
      for (int i = lo; i <= hi; i += step) {
        bits.set(i);
      }
    }
    return bits;
  }

  private static int number(String s, String[] names, int min, int max, String what) {
    if (names != null) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equalsIgnoreCase(s)) {
          return names == MONTHS ? i + 1 : i;
        }
      }
    }
    try {
      int v = Integer.parseInt(s);
      if (v < min || v > max) {
        throw new IllegalArgumentException(
            "invalid cron expression: " + what + " " + v + " is outside " + min + "-" + max);
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "invalid cron expression: " + what + " \"" + s + "\" is not a number");
    }
  }
}
