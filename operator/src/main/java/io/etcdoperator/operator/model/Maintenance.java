package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.DefragmentationSpec;
import io.etcdoperator.api.v1alpha1.DefragmentationThreshold;
import io.etcdoperator.api.v1alpha1.EtcdClusterSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the spec asks of the operator's upkeep of a running cluster, resolved with its defaults: the
 * defragmentation policy, the members' space quota (what etcd raises NOSPACE against), and the size
 * of each member's claim (what a volume expansion grows to).
 *
 * @param schedule defragment every member after each firing of this schedule (UTC)
 * @param thresholdPercent defragment a member whose database file is at least this percent not in
 *     use
 * @param minReclaimable ... and only when at least this many bytes would be given back
 * @param quotaBytes {@code quota-backend-bytes} as the members run it (etcd's default: 2 GiB;
 *     {@link Long#MAX_VALUE} when the quota is off)
 * @param storageBytes the size the spec asks of each member's claim, in bytes (0: emptyDir)
 * @param storage that size as the spec writes it, e.g. {@code 8Gi}
 */
public record Maintenance(
    Optional<Cron> schedule,
    OptionalInt thresholdPercent,
    long minReclaimable,
    long quotaBytes,
    long storageBytes,
    String storage) {
  /** etcd's default {@code quota-backend-bytes}: 2 GiB. */
  public static final long DEFAULT_QUOTA = 2L * 1024 * 1024 * 1024;

  /** The field whose value a volume expansion reads. */
  public static final String STORAGE_FIELD =
      "spec.storage.volumeClaimTemplate.spec.resources.requests.storage";

  /** etcd's defaults, no policy: what a cluster gets when the spec says nothing. */
  public static final Maintenance DEFAULTS =
      new Maintenance(
          Optional.empty(),
          OptionalInt.empty(),
          bytes(DefragmentationThreshold.DEFAULT_MIN_RECLAIMABLE),
          DEFAULT_QUOTA,
          bytes(DataStorage.DEFAULT_SIZE),
          DataStorage.DEFAULT_SIZE);

  /** etcd's defaults for a cluster on emptyDir: no claim to size. */
  public static final Maintenance WITHOUT_CLAIM =
      new Maintenance(
          Optional.empty(), OptionalInt.empty(), DEFAULTS.minReclaimable(), DEFAULT_QUOTA, 0, "");

  /** Whether a policy asks for defragmentation (NOSPACE recovery defragments regardless). */
  public boolean defragments() {
    return schedule.isPresent() || thresholdPercent.isPresent();
  }

  /**
   * Whether a member's database is fragmented past the threshold: at least {@code minReclaimable}
   * bytes, and at least {@code thresholdPercent} of the file, not in use. False without a threshold
   * or when the size in use is unknown (0).
   */
  public boolean pastThreshold(long dbSize, long dbSizeInUse) {
    if (thresholdPercent.isEmpty() || dbSizeInUse <= 0) {
      return false;
    }
    long reclaimable = Math.max(0, dbSize - dbSizeInUse);
    return reclaimable >= minReclaimable
        && reclaimable * 100 >= (long) thresholdPercent.getAsInt() * dbSize;
  }

  /** Resolves a valid spec (see {@link #problems}). */
  static Maintenance of(EtcdClusterSpec spec) {
    DefragmentationSpec d = spec.getDefragmentation();
    Optional<Cron> schedule =
        d == null || d.getSchedule() == null || d.getSchedule().isBlank()
            ? Optional.empty()
            : Optional.of(Cron.parse(d.getSchedule()));
    DefragmentationThreshold t = d == null ? null : d.getThreshold();
    OptionalInt percent =
        t == null
            ? OptionalInt.empty()
            : OptionalInt.of(
                t.getPercent() == null ? DefragmentationThreshold.DEFAULT_PERCENT : t.getPercent());
    long minimum =
        t == null || t.getMinReclaimable() == null
            ? DEFAULTS.minReclaimable()
            : bytes(t.getMinReclaimable());
    Quantity size = storageRequest(spec);
    return new Maintenance(
        schedule,
        percent,
        minimum,
        quota(spec.getOptions()),
        size == null ? 0 : bytes(size),
        size == null ? "" : size.toString());
  }

  /** Every problem of {@code spec.defragmentation}, as {@code field: reason}. */
  static List<SpecProblem> problems(EtcdClusterSpec spec) {
    List<SpecProblem> problems = new ArrayList<>();
    DefragmentationSpec d = spec.getDefragmentation();
    if (d == null) {
      return problems;
    }
    if (d.getSchedule() != null && !d.getSchedule().isBlank()) {
      Cron.problem(d.getSchedule())
          .ifPresent(
              why ->
                  problems.add(
                      new SpecProblem(
                          "spec.defragmentation.schedule",
                          why + " (5 cron fields in UTC, e.g. \"30 3 * * 0\", or @daily)")));
    }
    DefragmentationThreshold t = d.getThreshold();
    if (t != null && t.getPercent() != null && (t.getPercent() < 1 || t.getPercent() > 99)) {
      problems.add(
          new SpecProblem(
              "spec.defragmentation.threshold.percent",
              "must be between 1 and 99, got " + t.getPercent()));
    }
    if (t != null && t.getMinReclaimable() != null) {
      try {
        if (t.getMinReclaimable().getNumericalAmount().signum() < 0) {
          problems.add(
              new SpecProblem(
                  "spec.defragmentation.threshold.minReclaimable",
                  "must be 0 or more, got " + t.getMinReclaimable()));
        }
      } catch (IllegalArgumentException | ArithmeticException e) {
        problems.add(
            new SpecProblem(
                "spec.defragmentation.threshold.minReclaimable",
                "not a quantity: '" + t.getMinReclaimable() + "' (e.g. 64Mi)"));
      }
    }
    return problems;
  }

  /**
   * {@code quota-backend-bytes} from the options, as etcd reads it: absent or 0 is etcd's default,
   * negative turns the quota off; a value etcd could not read is taken for the default (etcd itself
   * refuses to start with it).
   */
  static long quota(Map<String, String> options) {
    String value = options == null ? null : options.get("quota-backend-bytes");
    if (value == null || value.isBlank()) {
      return DEFAULT_QUOTA;
    }
    try {
      long q = Long.parseLong(value.trim());
      return q == 0 ? DEFAULT_QUOTA : q < 0 ? Long.MAX_VALUE : q;
    } catch (NumberFormatException e) {
      return DEFAULT_QUOTA;
    }
  }

  private static Quantity storageRequest(EtcdClusterSpec spec) {
    if (!DataStorage.persistent(spec)) {
      return null;
    }
    var template = spec.getStorage() == null ? null : spec.getStorage().getVolumeClaimTemplate();
    if (template == null || template.getSpec() == null) {
      return new Quantity(DataStorage.DEFAULT_SIZE);
    }
    var resources = template.getSpec().getResources();
    return resources == null || resources.getRequests() == null
        ? new Quantity(DataStorage.DEFAULT_SIZE)
        : resources.getRequests().getOrDefault("storage", new Quantity(DataStorage.DEFAULT_SIZE));
  }

  /** A quantity in bytes (rounded up), as Kubernetes compares storage requests. */
  public static long bytes(Quantity q) {
    BigDecimal b = Quantity.getAmountInBytes(q);
    return b.setScale(0, RoundingMode.CEILING).longValueExact();
  }

  public static long bytes(String quantity) {
    return bytes(new Quantity(quantity));
  }

  /** Bytes for humans, in the binary units Kubernetes uses: 8Gi, 1.5Mi, 512. */
  public static String human(long bytes) {
    String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    double v = bytes;
    int u = 0;
    while (Math.abs(v) >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    if (u == 0) {
      return bytes + "B";
    }
    String text =
        v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    return text + units[u];
  }
}
