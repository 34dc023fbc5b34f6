package io.etcdoperator.operator.act;

import io.etcdoperator.operator.model.Names;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one live object what the model wants, with as few writes as possible: none when the live
 * object carries the hash of the same desired object (and, for the two fields others are known to
 * touch, a StatefulSet's replicas and a ConfigMap's data, still holds the desired value).
 *
 * <p>An update replaces what the operator owns and keeps what others own: labels and annotations
 * others added, finalizers, a Service's allocated cluster IPs, and the fields of a StatefulSet that
 * Kubernetes forbids changing (selector, serviceName, volumeClaimTemplates, podManagementPolicy).
 * The update carries the live resourceVersion: a concurrent change fails it with a conflict, and
 * the framework retries the reconcile.
 */
final class ObjectWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectWriter.class);

  private final KubernetesClient client;
  private final CallHook hook;

  ObjectWriter(KubernetesClient client, CallHook hook) {
    this.client = client;
    this.hook = hook;
  }

  /** The written object, or empty when the live one was already as desired. */
  <T extends HasMetadata> Optional<T> ensure(T desired, Optional<T> live) {
    return ensure(DesiredHash.of(desired), () -> desired, live, l -> ownedFieldsHold(desired, l));
  }

  /**
   * As {@link #ensure(HasMetadata, Optional)}, with the desired object's hash known ({@link
   * DesiredHash#of} of what {@code build} makes) and {@code ownedFieldsHold} telling whether a live
   * object still holds the desired values of the fields others are known to touch (a StatefulSet's
   * replicas, a ConfigMap's data): the object is built only when it must be written.
   */
  <T extends HasMetadata> Optional<T> ensure(
      String hash, Supplier<T> build, Optional<T> live, Predicate<T> ownedFieldsHold) {
    if (live.isPresent()
        && hash.equals(DesiredHash.on(live.get()))
        && ownedFieldsHold.test(live.get())) {
      return Optional.empty();
    }
    T desired = build.get();
    DesiredHash.put(desired, hash);
    if (live.isEmpty()) {
      LOG.info("Creating {} {}", desired.getKind(), desired.getMetadata().getName());
      T created = client.resource(desired).create();
      hook.after("k8s create " + desired.getKind() + " " + desired.getMetadata().getName());
      return Optional.of(created);
    }
    T current = live.get();
    T merged = keepWhatOthersOwn(desired, current);
    LOG.info("Updating {} {}", desired.getKind(), desired.getMetadata().getName());
    T updated = client.resource(merged).update();
    hook.after("k8s update " + desired.getKind() + " " + desired.getMetadata().getName());
    return Optional.of(updated);
  }

  private static boolean ownedFieldsHold(HasMetadata desired, HasMetadata live) {
    if (desired instanceof StatefulSet d && live instanceof StatefulSet l) {
      return Objects.equals(d.getSpec().getReplicas(), l.getSpec().getReplicas());
    }
    if (desired instanceof ConfigMap d && live instanceof ConfigMap l) {
      return Objects.equals(d.getData(), l.getData());
    }
    return true;
  }

  static <T extends HasMetadata> T keepWhatOthersOwn(T desired, T live) {
    var meta = desired.getMetadata();
    meta.setResourceVersion(live.getMetadata().getResourceVersion());
    meta.setLabels(union(live.getMetadata().getLabels(), meta.getLabels()));
    meta.setAnnotations(
        union(othersOnly(live.getMetadata().getAnnotations()), meta.getAnnotations()));
    meta.setFinalizers(live.getMetadata().getFinalizers());
    if (desired instanceof Service d && live instanceof Service l) {
      if (d.getSpec().getClusterIP() == null) {
        d.getSpec().setClusterIP(l.getSpec().getClusterIP());
        d.getSpec().setClusterIPs(l.getSpec().getClusterIPs());
      }
    }
    if (desired instanceof StatefulSet d && live instanceof StatefulSet l) {
      var ds = d.getSpec();
      var ls = l.getSpec();
      if (!Objects.equals(
          claimRequests(ds.getVolumeClaimTemplates()),
          claimRequests(ls.getVolumeClaimTemplates()))) {
        LOG.warn(
            "StatefulSet {}: the claim template cannot change on a running StatefulSet; existing"
                + " claims keep their size and class",
            meta.getName());
      }
      ds.setSelector(ls.getSelector());
      ds.setServiceName(ls.getServiceName());
      ds.setVolumeClaimTemplates(ls.getVolumeClaimTemplates());
      ds.setPodManagementPolicy(ls.getPodManagementPolicy());
    }
    return desired;
  }

  /** What a user can mean to change in claim templates: class, access modes, size. */
  private static List<String> claimRequests(List<PersistentVolumeClaim> templates) {
    if (templates == null) {
      return List.of();
    }
    return templates.stream()
        .map(
            t ->
                t.getMetadata().getName()
                    + " "
                    + t.getSpec().getStorageClassName()
                    + " "
                    + t.getSpec().getAccessModes()
                    + " "
                    + (t.getSpec().getResources() == null
                        ? null
                        : t.getSpec().getResources().getRequests()))
        .toList();
  }

  /** Annotations under the operator's prefix are the operator's: only the desired ones stay. */
  private static Map<String, String> othersOnly(Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    Map<String, String> others = new LinkedHashMap<>(annotations);
    others.keySet().removeIf(k -> k.startsWith(Names.ANNOTATION_PREFIX));
    return others;
  }

  private static Map<String, String> union(Map<String, String> theirs, Map<String, String> ours) {
    Map<String, String> result = new LinkedHashMap<>();
    if (theirs != null) {
      result.putAll(theirs);
    }
    if (ours != null) {
      result.putAll(ours);
    }
    return result.isEmpty() ? null : result;
  }
}
