package io.etcdoperator.sandbox.api.handlers;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The names a {@code pods/proxy} path gives, as the API server reads them ({@code
 * [SCHEME:]NAME[:PORT]}); the proxying itself runs in {@code KubectlPluginE2EIT}, whose plugin asks
 * every member through it.
 */
class ProxyHandlerTest {
  @ParameterizedTest
  @CsvSource({
    "test-0, http, test-0, 80",
    "test-0:2379, http, test-0, 2379",
    "https:test-0:2379, https, test-0, 2379",
    "http:test-0:, http, test-0, 80",
    "https:test-0, https, test-0, 80",
    ":test-0:2379, http, test-0, 2379"
  })
  void readsSchemePodAndPort(String name, String scheme, String pod, int port) {
    assertThat(ProxyHandler.Target.parse(name))
        .isEqualTo(new ProxyHandler.Target(scheme, pod, port));
  }
}
