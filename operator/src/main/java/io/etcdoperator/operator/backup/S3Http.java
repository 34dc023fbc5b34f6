package io.etcdoperator.operator.backup;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The few S3 calls {@link S3Store} makes, as HTTP requests signed with {@link SigV4}, over the
 * JDK's {@link HttpURLConnection} (which keeps connections alive between calls).
 *
 * <p>A call that cannot reach the store (refused, reset, timed out) or that the store answers with
 * 500, 502, 503, 504, 429 or an error code of its own trouble ({@link Failure#retryable}) is tried
 * again, at most {@link #ATTEMPTS} times in all, 200 ms and then 400 ms apart; every body is in
 * memory, so a retry sends the same bytes. A retry may repeat a call the store had carried out
 * before its answer was lost: harmless for every call but CompleteMultipartUpload, whose repeat the
 * store answers NoSuchUpload ({@link S3Store} then looks for the object). Any other answer of 300
 * or more is a {@link Failure} carrying the status and the store's error code. A download is
 * retried only until its answer starts: a stream that breaks off later is the reader's failure.
 *
 * <p>An answer shorter than its Content-Length is a failure, never a shorter answer: the JDK 17
 * HTTP connection reports a body cut short as its end (JDK-8335135), which would make a cut listing
 * page look whole and a cut download look like a short object.
 *
 * <p>The store's XML answers are read for the few elements the calls need, without an XML parser:
 * S3's answers are flat and their texts escaped as XML escapes them.
 */
final class S3Http {
  static final int ATTEMPTS = 3;

  private static final Set<String> RETRYABLE_CODES =
      Set.of("InternalError", "SlowDown", "ServiceUnavailable", "RequestTimeout", "Throttling");

  /** The store answered with an error. */
  static final class Failure extends IOException {
    private final int status;
    private final String code;

    Failure(int status, String code, String message) {
      super(code + " (HTTP " + status + ")" + (message.isEmpty() ? "" : ": " + message));
      this.status = status;
      this.code = code;
    }

    int status() {
      return status;
    }

    /** The store's error code ({@code NoSuchKey}, {@code AccessDenied}...), empty if none. */
    String code() {
      return code;
    }

    /**
     * The store's own trouble, which a later attempt may not meet: 500, 502, 503, 504 and 429, and
     * the codes S3 gives them whatever the status (a CompleteMultipartUpload fails with a 200 and
     * an InternalError body; a part whose body came too slowly is a 400 RequestTimeout).
     */
    boolean retryable() {
      return status == 500
          || status == 502
          || status == 503
          || status == 504
          || status == 429
          || RETRYABLE_CODES.contains(code);
    }
  }

  /** A whole answer. */
  record Response(int status, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      for (var e : headers.entrySet()) {
        if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return e.getValue().get(0);
        }
      }
      return null;
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final URI endpoint;
  private final boolean pathStyle;
  private final String bucket;
  private final SigV4 signer;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final Clock clock;

  S3Http(
      URI endpoint,
      String region,
      boolean pathStyle,
      String bucket,
      String accessKeyId,
      String secretAccessKey,
      Duration connectTimeout,
      Duration readTimeout) {
    this.endpoint = endpoint;
    // a bucket cannot be a subdomain of an IP address: such an endpoint takes the bucket in the
    // path whatever forcePathStyle says (as AWS's own SDKs do)
    this.pathStyle = pathStyle || ipAddress(endpoint.getHost());
    this.bucket = bucket;
    this.signer = new SigV4(accessKeyId, secretAccessKey, region, "s3");
    this.connectTimeoutMillis = (int) connectTimeout.toMillis();
    this.readTimeoutMillis = (int) readTimeout.toMillis();
    this.clock = Clock.systemUTC();
  }

  /**
   * Sends one request about {@code key} ({@code null}: the bucket itself) and reads its whole
   * answer.
   */
  Response send(String method, String key, Map<String, String> query, byte[] body, int off, int len)
      throws IOException {
    return retrying(
        () -> {
          HttpURLConnection c = open(method, key, query, body, off, len);
          try (InputStream in = whole(c)) {
            Response r = new Response(c.getResponseCode(), c.getHeaderFields(), in.readAllBytes());
            // an XML answer cut short may come without a length (chunked), and end silently
            if (r.body.length > 0 && !xmlEnds(r.text())) {
              throw new EOFException("the store's XML answer ended before its end");
            }
            // CompleteMultipartUpload may fail after its 200 has been sent
            if (r.body.length > 0 && r.text().contains("<Error>")) {
              throw failure(r.status, r.text());
            }
            return r;
          }
        });
  }

  /** A GET of {@code key}'s content, as it arrives. */
  InputStream download(String key) throws IOException {
    return retrying(
        () -> {
          HttpURLConnection c = open("GET", key, Map.of(), null, 0, 0);
          return whole(c);
        });
  }

  /**
   * The answer's body, failing with an {@link EOFException} when it ends before its Content-Length
   * (see the class Javadoc).
   */
  private static InputStream whole(HttpURLConnection c) throws IOException {
    long expected = c.getContentLengthLong();
    InputStream in = c.getInputStream();
    if (expected < 0 || "HEAD".equals(c.getRequestMethod())) {
      return in;
    }
    return new FilterInputStream(in) {
      private long read;

      @Override
      public int read() throws IOException {
        int b = super.read();
        count(b < 0 ? -1 : 1);
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        count(n);
        return n;
      }

      private void count(int n) throws EOFException {
        if (n < 0) {
          if (read < expected) {
            throw new EOFException(
                "the answer ended after " + read + " of its " + expected + " bytes");
          }
        } else {
          read += n;
        }
      }
    };
  }

  private interface Attempt<T> {
    T run() throws IOException;
  }

  private <T> T retrying(Attempt<T> attempt) throws IOException {
    for (int i = 1; ; i++) {
      try {
        return attempt.run();
      } catch (Failure f) {
        if (!f.retryable() || i == ATTEMPTS) {
          throw f;
        }
      } catch (IOException e) {
        if (i == ATTEMPTS) {
          throw e;
        }
      }
      try {
        Thread.sleep(200L << (i - 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }

  /** Whether a URI's host is an IPv4 address or a bracketed IPv6 one. */
  static boolean ipAddress(String host) {
    return host != null
        && (host.startsWith("[") || host.matches("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}"));
  }

  /** A connection whose request has been sent and whose answer's status was a success. */
  private HttpURLConnection open(
      String method, String key, Map<String, String> query, byte[] body, int off, int len)
      throws IOException {
    String base = endpoint.getPath() == null ? "" : endpoint.getPath();
    base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    String host = endpoint.getHost();
    String path;
    if (pathStyle) {
      path = base + "/" + bucket + (key == null ? "" : "/" + key);
    } else {
      host = bucket + "." + host;
      path = base + "/" + (key == null ? "" : key);
    }
    String encodedPath = SigV4.encodePath(path);
    String query0 = SigV4.canonicalQuery(query);
    URL url =
        new URL(
            endpoint.getScheme(),
            host,
            endpoint.getPort(),
            encodedPath + (query0.isEmpty() ? "" : "?" + query0));
    // the Host header as HttpURLConnection writes it
    String hostHeader =
        url.getPort() != -1 && url.getPort() != url.getDefaultPort()
            ? host + ":" + url.getPort()
            : host;
    String payload = body == null ? SigV4.EMPTY_SHA256 : SigV4.sha256Hex(body, off, len);
    Instant now = clock.instant();
    Map<String, String> signed = new LinkedHashMap<>();
    signed.put("host", hostHeader);
    signed.put("x-amz-content-sha256", payload);
    signed.put("x-amz-date", SigV4.stamp(now));

    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.setRequestMethod(method);
    c.setConnectTimeout(connectTimeoutMillis);
    c.setReadTimeout(readTimeoutMillis);
    c.setInstanceFollowRedirects(false);
    c.setRequestProperty("x-amz-content-sha256", payload);
    c.setRequestProperty("x-amz-date", signed.get("x-amz-date"));
    c.setRequestProperty(
        "Authorization", signer.authorization(method, encodedPath, query, signed, payload, now));
    int status;
    try {
      if (body != null) {
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(len);
        // XML for CompleteMultipartUpload only: the type given when an upload starts is the
        // object's
        c.setRequestProperty(
            "Content-Type",
            method.equals("POST") && query.containsKey("uploadId")
                ? "application/xml"
                : "application/octet-stream");
        try (OutputStream out = c.getOutputStream()) {
          out.write(body, off, len);
        }
      }
      status = c.getResponseCode();
    } catch (IOException e) {
      c.disconnect();
      throw e;
    }
    if (status >= 300) {
      String text = "";
      // read whole: the connection stays alive for the next call
      try (InputStream err = c.getErrorStream()) {
        if (err != null) {
          text = new String(err.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
      throw failure(status, text);
    }
    return c;
  }

  private static final Pattern ROOT =
      Pattern.compile("^\\s*(?:<\\?[^>]*\\?>\\s*)?<([A-Za-z][\\w.-]*)");

  /** Whether {@code text}, if it is XML, ends with its root element's end tag. */
  static boolean xmlEnds(String text) {
    Matcher m = ROOT.matcher(text);
    return !m.find() || text.stripTrailing().endsWith("</" + m.group(1) + ">");
  }

  static Failure failure(int status, String xml) {
    String code = first(xml, "Code");
    String message = first(xml, "Message");
    return new Failure(status, code == null ? "" : code, message == null ? "" : message);
  }

  /** The text of the first element {@code name} of {@code xml}, unescaped; null if none. */
  static String first(String xml, String name) {
    List<String> all = all(xml, name);
    return all.isEmpty() ? null : all.get(0);
  }

  /** The texts of every element {@code name} of {@code xml}, unescaped, in order. */
  static List<String> all(String xml, String name) {
    List<String> found = new ArrayList<>();
    Matcher m = Pattern.compile("<" + name + ">(.*?)</" + name + ">", Pattern.DOTALL).matcher(xml);
    while (m.find()) {
      found.add(unescape(m.group(1)));
    }
    return found;
  }

  private static final Pattern ENTITY = Pattern.compile("&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);");

  static String unescape(String s) {
    if (s.indexOf('&') < 0) {
      return s;
    }
    Matcher m = ENTITY.matcher(s);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      String e = m.group(1);
      String r =
          switch (e) {
            case "amp" -> "&";
            case "lt" -> "<";
            case "gt" -> ">";
            case "quot" -> "\"";
            case "apos" -> "'";
            default ->
                e.startsWith("#x")
                    ? Character.toString(Integer.parseInt(e.substring(2), 16))
                    : e.startsWith("#")
                        ? Character.toString(Integer.parseInt(e.substring(1)))
                        : m.group();
          };
      m.appendReplacement(b, Matcher.quoteReplacement(r));
    }
    m.appendTail(b);
    return b.toString();
  }

  /** {@code s} escaped for an XML element's text. */
  static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&apos;");
  }
}
