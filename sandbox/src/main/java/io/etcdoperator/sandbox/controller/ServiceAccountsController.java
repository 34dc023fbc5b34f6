package io.etcdoperator.sandbox.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Two controllers of kube-controller-manager in one loop: the ServiceAccount controller, which
 * keeps a ServiceAccount {@code default} in every namespace, and the root CA publisher, which keeps
 * the ConfigMap {@code kube-root-ca.crt} (key {@code ca.crt}: the CA that signed the API server's
 * certificate) in every namespace. Pods need both: the ServiceAccount admission refuses a pod whose
 * ServiceAccount does not exist, and every pod's token volume projects that ConfigMap. A namespace
 * being deleted gets neither. Namespaces and ServiceAccounts are watched; a deleted ConfigMap comes
 * back at the next resync.
 */
public final class ServiceAccountsController extends Controller {
  private final String caPem;

  public ServiceAccountsController(KubernetesClient client, Duration resync, String caPem) {
    super(client, "serviceaccount-controller", resync);
    this.caPem = caPem;
  }

  @Override
  public void start() {
    this.<Namespace>watch(w -> client.namespaces().watch(w));
    this.<ServiceAccount>watch(w -> client.serviceAccounts().inAnyNamespace().watch(w));
    super.start();
  }

  @Override
  protected void reconcile() {
    List<Namespace> namespaces = client.namespaces().list().getItems();
    Set<String> withAccount = new HashSet<>();
    for (ServiceAccount sa : client.serviceAccounts().inAnyNamespace().list().getItems()) {
      if ("default".equals(sa.getMetadata().getName())) {
        withAccount.add(sa.getMetadata().getNamespace());
      }
    }
    for (Namespace n : namespaces) {
      String ns = n.getMetadata().getName();
      if (n.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      try {
        if (!withAccount.contains(ns)) {
          client
              .serviceAccounts()
              .inNamespace(ns)
              .resource(
                  new ServiceAccountBuilder()
                      .withNewMetadata()
                      .withName("default")
                      .withNamespace(ns)
                      .endMetadata()
                      .build())
              .create();
        }
        ConfigMap ca = client.configMaps().inNamespace(ns).withName("kube-root-ca.crt").get();
        Map<String, String> want = Map.of("ca.crt", caPem);
        if (ca == null) {
          client
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("kube-root-ca.crt")
                      .withNamespace(ns)
                      .addToAnnotations(
                          "kubernetes.io/description",
                          "Contains a CA bundle that can be used to verify the kube-apiserver"
                              + " when using internal endpoints such as the internal service IP"
                              + " or kubernetes.default.svc. No other usage is guaranteed across"
                              + " distributions of Kubernetes clusters.")
                      .endMetadata()
                      .withData(want)
                      .build())
              .create();
        } else if (!want.equals(ca.getData())) {
          client
              .configMaps()
              .inNamespace(ns)
              .withName("kube-root-ca.crt")
              .edit(
                  c -> {
                    c.setData(want);
                    return c;
                  });
        }
      } catch (KubernetesClientException e) {
        // 409: made meanwhile; 403/404: the namespace is going; the next pass looks again
        log.debug("namespace {}: {}", ns, e.getMessage());
      }
    }
  }
}
