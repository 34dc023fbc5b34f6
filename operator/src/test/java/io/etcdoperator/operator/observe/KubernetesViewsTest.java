package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.observe.PodView.PeerCertificate;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a member pod's own arguments say about how it talks to its peers. */
class KubernetesViewsTest {
  static Pod pod(String container, List<String> args, List<EnvVar> env) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("test-0")
        .endMetadata()
        .withNewSpec()
        .withContainers(
            new ContainerBuilder().withName(container).withArgs(args).withEnv(env).build())
        .endSpec()
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "aenix's bare flag            | etcd  | --peer-auto-tls                                   |                    | AUTO",
        "ours                         | etcd  | --peer-auto-tls=true                              |                    | AUTO",
        "turned off                   | etcd  | --peer-auto-tls=false                             |                    | NONE",
        "by its variable              | etcd  | --name=x                                          | true               | AUTO",
        "a peer Secret wins over auto | etcd  | --peer-auto-tls --peer-cert-file=/p/tls.crt       |                    | FILE",
        "a peer Secret                | etcd  | --peer-cert-file=/etc/etcd/pki/peer/cert/tls.crt  |                    | FILE",
        "plain                        | etcd  | --listen-peer-urls=http://[::]:2380               |                    | NONE",
        "another container's flag     | proxy | --peer-auto-tls                                   |                    | NONE"
      })
  void readsThePeerCertificateFromTheEtcdContainer(
      String name, String container, String args, String variable, PeerCertificate expected) {
    List<EnvVar> env =
        variable == null ? List.of() : List.of(new EnvVar("ETCD_PEER_AUTO_TLS", variable, null));
    assertThat(KubernetesViews.peerCertificate(pod(container, List.of(args.split(" ")), env)))
        .isEqualTo(expected);
  }
}
