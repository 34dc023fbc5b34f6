package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnvExpansionTest {
  private static final Map<String, String> VARS = Map.of("POD_NAME", "etcd-0", "NS", "default");

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--name=$(POD_NAME)|--name=etcd-0",
        "http://$(POD_NAME).c-headless.$(NS).svc:2380|http://etcd-0.c-headless.default.svc:2380",
        "$(UNDEFINED)|$(UNDEFINED)",
        "$$(POD_NAME)|$(POD_NAME)",
        "cost $5|cost $5",
        "$(POD_NAME|$(POD_NAME",
        "plain|plain",
        "a$|a$"
      })
  void expandsAsKubernetesDoes(String input, String expected) {
    assertThat(EnvExpansion.expand(input, VARS)).isEqualTo(expected);
  }
}
