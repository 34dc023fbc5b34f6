package io.etcdoperator.operator.backup;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for a request's {@code Authorization} header, as S3 and every
 * S3-compatible store check it. Pure: the same request, keys and instant give the same signature.
 *
 * <ol>
 *   <li>The canonical request: method, the URI-encoded path (S3 encodes it once and keeps {@code
 *       /}), the query parameters sorted by encoded name with their encoded values ({@code name=}
 *       for a parameter without one), each signed header as {@code name:value} with the name in
 *       lower case and the value trimmed, sorted by name, the list of their names, and the hex
 *       SHA-256 of the payload.
 *   <li>The string to sign: {@code AWS4-HMAC-SHA256}, the instant in ISO basic form, the scope
 *       {@code date/region/service/aws4_request} and the hex SHA-256 of the canonical request.
 *   <li>The signing key: HMAC-SHA256 chained from {@code "AWS4" + secret} over the date, the
 *       region, the service and {@code aws4_request}; the signature is the hex HMAC of the string
 *       to sign under it.
 * </ol>
 */
final class SigV4 {
  static final String ALGORITHM = "AWS4-HMAC-SHA256";
  static final String EMPTY_SHA256 =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final String accessKeyId;
  private final String secretAccessKey;
  private final String region;
  private final String service;

  SigV4(String accessKeyId, String secretAccessKey, String region, String service) {
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
    this.region = region;
    this.service = service;
  }

  /** {@code x-amz-date}'s value for {@code at}. */
  static String stamp(Instant at) {
    return STAMP.format(at);
  }

  /**
   * The {@code Authorization} header's value.
   *
   * @param path the path as sent, already encoded with {@link #encodePath}
   * @param query the parameters, not encoded
   * @param headers every header to sign (at least {@code host} and {@code x-amz-date}), any case
   * @param payloadSha256 the hex SHA-256 of the body, as sent in {@code x-amz-content-sha256}
   */
  String authorization(
      String method,
      String path,
      Map<String, String> query,
      Map<String, String> headers,
      String payloadSha256,
      Instant at) {
    SortedMap<String, String> signed = new TreeMap<>();
    headers.forEach((k, v) -> signed.put(k.toLowerCase(Locale.ROOT), v.trim()));
    String names = String.join(";", signed.keySet());
    String canonical =
        method
            + "\n"
            + path
            + "\n"
            + canonicalQuery(query)
            + "\n"
            + signed.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue() + "\n")
                .collect(Collectors.joining())
            + "\n"
            + names
            + "\n"
            + payloadSha256;
    String stamp = stamp(at);
    String date = stamp.substring(0, 8);
    String scope = date + "/" + region + "/" + service + "/aws4_request";
    String toSign = ALGORITHM + "\n" + stamp + "\n" + scope + "\n" + sha256Hex(canonical);
    byte[] key = hmac(("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, service);
    key = hmac(key, "aws4_request");
    String signature = HexFormat.of().formatHex(hmac(key, toSign));
    return ALGORITHM
        + " Credential="
        + accessKeyId
        + "/"
        + scope
        + ",SignedHeaders="
        + names
        + ",Signature="
        + signature;
  }

  static String canonicalQuery(Map<String, String> query) {
    SortedMap<String, String> sorted = new TreeMap<>();
    query.forEach((k, v) -> sorted.put(encode(k, true), encode(v == null ? "" : v, true)));
    return sorted.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining("&"));
  }

  /** A path as S3 wants it: every byte but the unreserved ones and {@code /} percent-encoded. */
  static String encodePath(String path) {
    return encode(path, false);
  }

  /** RFC 3986 unreserved characters stay; {@code /} too unless {@code slash}; the rest %XX. */
  static String encode(String s, boolean slash) {
    StringBuilder b = new StringBuilder();
    for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
      if (c >= 'A' && c <= 'Z'
          || c >= 'a' && c <= 'z'
          || c >= '0' && c <= '9'
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || c == '/' && !slash) {
        b.append((char) c);
      } else {
        b.append('%').append(HexFormat.of().withUpperCase().toHexDigits(c));
      }
    }
    return b.toString();
  }

  static String sha256Hex(String s) {
    return sha256Hex(s.getBytes(StandardCharsets.UTF_8), 0, s.length() == 0 ? 0 : -1);
  }

  /** The hex SHA-256 of {@code length} bytes of {@code b} from {@code off} (-1: all of it). */
  static String sha256Hex(byte[] b, int off, int length) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(b, off, length < 0 ? b.length - off : length);
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has HmacSHA256", e);
    }
  }
}
