package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.EmbeddedService;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import java.util.Map;

/**
 * A cluster's two Services: the headless one that gives each member its stable DNS name, and the
 * clients' one. The spec's templates are laid over what the operator needs (ports merged by name,
 * field by field), and the API server's defaults are written out, so that an unchanged Service is
 * never written again.
 */
final class ClusterServices {
  private ClusterServices() {}

  /** {@code <cluster>-headless}: each member's stable DNS name, resolvable before it is ready. */
  static Service headless(EtcdClusterModel m, EmbeddedService template) {
    ServiceSpec ours =
        new ServiceSpecBuilder()
            .withClusterIP("None")
            .withPublishNotReadyAddresses(true)
            .withSelector(Names.selectorLabels(m.name()))
            .withPorts(
                port(Names.PEER_PORT_NAME, Names.PEER_PORT),
                port(Names.CLIENT_PORT_NAME, Names.CLIENT_PORT))
            .build();
    return service(m, Names.headlessService(m.name()), ours, template);
  }

  /** {@code <cluster>}: the clients' Service, to ready members only. */
  static Service client(EtcdClusterModel m, EmbeddedService template) {
    ServiceSpec ours =
        new ServiceSpecBuilder()
            .withSelector(Names.selectorLabels(m.name()))
            .withPorts(port(Names.CLIENT_PORT_NAME, Names.CLIENT_PORT))
            .build();
    return service(m, Names.clientService(m.name()), ours, template);
  }

  private static Service service(
      EtcdClusterModel m, String serviceName, ServiceSpec ours, EmbeddedService template) {
    var meta = template == null ? null : template.getMetadata();
    ServiceSpec merged = ours;
    if (template != null && template.getSpec() != null) {
      merged =
          Overlay.fromMap(
              Overlay.overlay(
                  Overlay.toMap(ours),
                  Overlay.toMap(template.getSpec()),
                  Map.of("ports", Overlay::mergeByNameFieldwise)),
              ServiceSpec.class);
    }
    ApiDefaults.serviceSpec(merged);
    return new ServiceBuilder()
        .withMetadata(
            m.metadata(serviceName, Overlay.labels(m.name(), meta), Overlay.annotations(meta)))
        .withSpec(merged)
        .build();
  }

  private static ServicePort port(String portName, int port) {
    // The target is explicit, so that a template that changes the port keeps the target.
    return new ServicePortBuilder()
        .withName(portName)
        .withPort(port)
        .withTargetPort(new IntOrString(port))
        .build();
  }
}
