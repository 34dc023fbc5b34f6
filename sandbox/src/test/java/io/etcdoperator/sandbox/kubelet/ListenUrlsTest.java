package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ListenUrlsTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "http://0.0.0.0:2379|http://127.20.0.9:2379",
        "http://127.0.0.1:2379|http://127.20.0.9:2379",
        "http://localhost:2381|http://127.20.0.9:2381",
        "http://[::]:2380|http://127.20.0.9:2380",
        "http://0.0.0.0:2379,http://127.0.0.1:2379|http://127.20.0.9:2379",
        "http://etcd-0.svc:2379|http://etcd-0.svc:2379",
        "https://0.0.0.0:2379/x|https://127.20.0.9:2379/x"
      })
  void localHostsBecomeThePodAddress(String urls, String expected) {
    assertThat(ListenUrls.rewrite(urls, "127.20.0.9")).isEqualTo(expected);
  }

  @Test
  void rewritesFlagsInBothFormsAndLeavesAdvertiseUrlsAlone() {
    List<String> args =
        List.of(
            "--listen-client-urls=http://0.0.0.0:2379",
            "--listen-peer-urls",
            "http://0.0.0.0:2380",
            "-listen-metrics-urls=http://0.0.0.0:2381",
            "--advertise-client-urls=http://localhost:2379");
    assertThat(ListenUrls.rewriteArgs(args, "127.20.0.9"))
        .containsExactly(
            "--listen-client-urls=http://127.20.0.9:2379",
            "--listen-peer-urls",
            "http://127.20.0.9:2380",
            "-listen-metrics-urls=http://127.20.0.9:2381",
            "--advertise-client-urls=http://localhost:2379");
  }

  @Test
  void envIsRewrittenAndEtcdDefaultsArePinnedToThePod() {
    Map<String, String> env =
        new LinkedHashMap<>(Map.of("ETCD_LISTEN_METRICS_URLS", "http://0.0.0.0:2381"));
    ListenUrls.rewriteEnv(env, List.of(), "127.20.0.9");
    assertThat(env)
        .containsEntry("ETCD_LISTEN_METRICS_URLS", "http://127.20.0.9:2381")
        .containsEntry("ETCD_LISTEN_CLIENT_URLS", "http://127.20.0.9:2379")
        .containsEntry("ETCD_LISTEN_PEER_URLS", "http://127.20.0.9:2380");
    Map<String, String> withFlags = new LinkedHashMap<>();
    ListenUrls.rewriteEnv(
        withFlags,
        List.of("--listen-client-urls=http://x:1", "--listen-peer-urls=http://x:2"),
        "127.20.0.9");
    assertThat(withFlags).isEmpty();
  }

  @Test
  void peersThatMustShowClientCertificatesSkipTheSourceAddressCheckUnlessThePodChose() {
    List<String> tls = List.of("--listen-peer-urls=https://x:2", "--peer-client-cert-auth=true");
    Map<String, String> env = new LinkedHashMap<>();
    ListenUrls.rewriteEnv(env, tls, "127.20.0.9");
    assertThat(env).containsEntry("ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION", "true");

    Map<String, String> chose = new LinkedHashMap<>();
    List<String> withChoice = new java.util.ArrayList<>(tls);
    withChoice.add("--experimental-peer-skip-client-san-verification=false");
    ListenUrls.rewriteEnv(chose, withChoice, "127.20.0.9");
    assertThat(chose).doesNotContainKey("ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION");

    Map<String, String> plain = new LinkedHashMap<>();
    ListenUrls.rewriteEnv(plain, List.of("--listen-peer-urls=http://x:2"), "127.20.0.9");
    assertThat(plain).doesNotContainKey("ETCD_EXPERIMENTAL_PEER_SKIP_CLIENT_SAN_VERIFICATION");
  }
}
