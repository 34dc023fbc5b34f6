package io.etcdoperator.operator.model;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An etcd version, as an image tag or etcd itself names it: {@code quay.io/coreos/etcd:v3.5.17},
 * {@code registry.k8s.io/etcd:3.5.21-0}, {@code 3.5.30}, or a cluster version such as {@code 3.5}
 * (patch 0). Pure.
 */
public record EtcdVersion(int major, int minor, int patch) implements Comparable<EtcdVersion> {
  private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");
  private static final Comparator<EtcdVersion> ORDER =
      Comparator.comparingInt(EtcdVersion::major)
          .thenComparingInt(EtcdVersion::minor)
          .thenComparingInt(EtcdVersion::patch);

  /** {@code 3.5.30}, {@code v3.5.17}, {@code 3.5.21-0}, {@code 3.5}; empty when not a version. */
  public static Optional<EtcdVersion> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    Matcher m = VERSION.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new EtcdVersion(
            Integer.parseInt(m.group(1)),
            Integer.parseInt(m.group(2)),
            m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
  }

  /**
   * The version an image reference's tag names ({@code repo/etcd:v3.5.17} -> 3.5.17); empty when
   * the image has no tag, a tag that is no version ({@code latest}), or only a digest.
   */
  public static Optional<EtcdVersion> ofImage(String image) {
    if (image == null) {
      return Optional.empty();
    }
    String ref = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
    int slash = ref.lastIndexOf('/');
    int colon = ref.lastIndexOf(':');
    if (colon <= slash) {
      return Optional.empty();
    }
    return parse(ref.substring(colon + 1));
  }

  /** {@code 3.5}: what decides compatibility; patches interoperate freely. */
  public String minorVersion() {
    return major + "." + minor;
  }

  /** The same major.minor. */
  public boolean sameMinor(EtcdVersion other) {
    return major == other.major && minor == other.minor;
  }

  /**
   * How many minor versions {@code to} is ahead of this one (negative: behind), within one major
   * version; {@link Integer#MAX_VALUE} across major versions.
   */
  public int minorsTo(EtcdVersion to) {
    return major == to.major ? to.minor - minor : Integer.MAX_VALUE;
  }

  @Override
  public int compareTo(EtcdVersion other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
