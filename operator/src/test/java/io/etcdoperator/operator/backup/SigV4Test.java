package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Signatures against AWS's published examples: the S3 GET Object example of "Signature Calculations
 * for the Authorization Header" and the test suite's get-vanilla-query-order-key-case. Every
 * request to s3proxy in the backup tests checks the rest: it verifies each signature.
 */
class SigV4Test {
  private static final String S3_EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

  @Test
  void s3sGetObjectExample() {
    SigV4 signer = new SigV4("AKIAIOSFODNN7EXAMPLE", S3_EXAMPLE_SECRET, "us-east-1", "s3");
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Host", "examplebucket.s3.amazonaws.com");
    headers.put("Range", "bytes=0-9");
    headers.put("x-amz-content-sha256", SigV4.EMPTY_SHA256);
    headers.put("x-amz-date", "20130524T000000Z");

    String authorization =
        signer.authorization(
            "GET",
            "/test.txt",
            Map.of(),
            headers,
            SigV4.EMPTY_SHA256,
            Instant.parse("2013-05-24T00:00:00Z"));

    assertThat(authorization)
        .isEqualTo(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  }

  @Test
  void queryParametersAreSortedByName() {
    SigV4 signer =
        new SigV4(
            "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "service");
    Map<String, String> query = new LinkedHashMap<>();
    query.put("Param2", "value2");
    query.put("Param1", "value1");

    String authorization =
        signer.authorization(
            "GET",
            "/",
            query,
            Map.of("host", "example.amazonaws.com", "x-amz-date", "20150830T123600Z"),
            SigV4.EMPTY_SHA256,
            Instant.parse("2015-08-30T12:36:00Z"));

    assertThat(authorization)
        .endsWith(
            "SignedHeaders=host;x-amz-date,"
                + "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  }

  @Test
  void aWrongSecretGivesAnotherSignature() {
    Map<String, String> headers = Map.of("host", "h", "x-amz-date", "20130524T000000Z");
    Instant at = Instant.parse("2013-05-24T00:00:00Z");
    String right =
        new SigV4("id", "secret", "us-east-1", "s3")
            .authorization("GET", "/", Map.of(), headers, SigV4.EMPTY_SHA256, at);
    String wrong =
        new SigV4("id", "secreT", "us-east-1", "s3")
            .authorization("GET", "/", Map.of(), headers, SigV4.EMPTY_SHA256, at);
    assertThat(wrong).isNotEqualTo(right);
  }

  @Test
  void pathsKeepSlashesQueriesDoNot() {
    assertThat(SigV4.encodePath("/b/nightly/a b+c~é.db"))
        .isEqualTo("/b/nightly/a%20b%2Bc~%C3%A9.db");
    assertThat(SigV4.canonicalQuery(Map.of("prefix", "a/b", "uploads", "")))
        .isEqualTo("prefix=a%2Fb&uploads=");
  }

  @Test
  void emptyPayloadHash() {
    assertThat(SigV4.sha256Hex("")).isEqualTo(SigV4.EMPTY_SHA256);
    assertThat(SigV4.sha256Hex(new byte[] {1, 2, 3, 4}, 1, 0)).isEqualTo(SigV4.EMPTY_SHA256);
  }

  @Test
  void storeAnswersAreReadWithoutAParser() {
    String error =
        "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code>"
            + "<Message>The key &lt;a&amp;b&gt; &#x41;&#66; does not exist</Message></Error>";
    S3Http.Failure f = S3Http.failure(404, error);
    assertThat(f.code()).isEqualTo("NoSuchKey");
    assertThat(f.getMessage()).isEqualTo("NoSuchKey (HTTP 404): The key <a&b> AB does not exist");
    assertThat(f.retryable()).isFalse();
    assertThat(S3Http.failure(503, "").retryable()).isTrue();
    assertThat(
            S3Http.all(
                "<R><Contents><Key>a</Key></Contents><Contents><Key>b&amp;c</Key>"
                    + "</Contents></R>",
                "Key"))
        .containsExactly("a", "b&c");
    assertThat(S3Http.escape("\"e&t<a>g'")).isEqualTo("&quot;e&amp;t&lt;a&gt;g&apos;");
    assertThat(
            S3Http.xmlEnds(
                "<?xml version=\"1.0\"?>\n<ListBucketResult><Key>a</Key></ListBucketResult>\n"))
        .isTrue();
    assertThat(S3Http.xmlEnds("<?xml version=\"1.0\"?><ListBucketResult><Key>a</Key><Ke"))
        .isFalse();
    assertThat(S3Http.xmlEnds("<ListBucketResult><Key>a</Key></Key>")).isFalse();
    assertThat(S3Http.xmlEnds("not xml")).isTrue();
    assertThat(S3Http.failure(400, "<Error><Code>RequestTimeout</Code></Error>").retryable())
        .isTrue();
    assertThat(S3Http.failure(200, "<Error><Code>InternalError</Code></Error>").retryable())
        .isTrue();
    assertThat(S3Http.failure(403, "<Error><Code>AccessDenied</Code></Error>").retryable())
        .isFalse();
    assertThat(S3Http.unescape(S3Http.escape("\"e&t<a>g'"))).isEqualTo("\"e&t<a>g'");
  }
}
