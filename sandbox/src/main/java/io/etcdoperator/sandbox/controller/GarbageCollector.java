package io.etcdoperator.sandbox.controller;

import io.etcdoperator.sandbox.api.ResourceType;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The garbage collector of the controller manager, which the mock server lacks: an object all of
 * whose owners are gone is deleted (background propagation).
 *
 * <p>Each pass lists every served kind, collects the uids that exist, and for each object with
 * owner references none of which is among them, confirms with a read of each owner by name that it
 * is really gone (or has another uid: a new object of the same name is not the owner) before
 * deleting the dependent. An owner that is being deleted still counts as present. Deleting a
 * dependent that is itself an owner lets the next pass collect its own dependents, so whole trees
 * go (EtcdCluster, then StatefulSet, then pods and, per retention policy, claims).
 *
 * <p>Orphan propagation ({@code propagationPolicy: Orphan}) is done by the API server stand-in
 * before the owner goes: its dependents lose their reference to it and so are never collected. Not
 * emulated: foreground deletion (a delete with {@code propagationPolicy: Foreground} behaves as
 * Background).
 */
public final class GarbageCollector extends Controller {
  private final Supplier<List<ResourceType>> types;

  public GarbageCollector(
      KubernetesClient client, Duration resync, Supplier<List<ResourceType>> types) {
    super(client, "garbage-collector", resync);
    this.types = types;
  }

  @Override
  protected void reconcile() {
    List<ResourceType> served = types.get();
    Set<String> uids = new HashSet<>();
    List<Object[]> objects = new ArrayList<>();
    for (ResourceType t : served) {
      if (t.plural().equals("events")) {
        continue;
      }
      ResourceDefinitionContext ctx = context(t);
      List<GenericKubernetesResource> items =
          t.namespaced()
              ? client.genericKubernetesResources(ctx).inAnyNamespace().list().getItems()
              : client.genericKubernetesResources(ctx).list().getItems();
      for (GenericKubernetesResource o : items) {
        uids.add(o.getMetadata().getUid());
        objects.add(new Object[] {t, o});
      }
    }
    for (Object[] pair : objects) {
      ResourceType t = (ResourceType) pair[0];
      GenericKubernetesResource o = (GenericKubernetesResource) pair[1];
      List<OwnerReference> owners = o.getMetadata().getOwnerReferences();
      if (owners == null || owners.isEmpty() || o.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      if (owners.stream().anyMatch(r -> uids.contains(r.getUid()))) {
        continue;
      }
      if (owners.stream().noneMatch(r -> ownerExists(served, r, o.getMetadata().getNamespace()))) {
        try {
          log.debug(
              "collecting {} {}/{}",
              t.kind(),
              o.getMetadata().getNamespace(),
              o.getMetadata().getName());
          var r = client.genericKubernetesResources(context(t));
          var dependent =
              (t.namespaced() ? r.inNamespace(o.getMetadata().getNamespace()) : r)
                  .withName(o.getMetadata().getName());
          // Read it again: it may have been orphaned (its owner deleted with propagation
          // Orphan) or adopted since the list this pass started from.
          GenericKubernetesResource now = dependent.get();
          if (now == null
              || !now.getMetadata().getUid().equals(o.getMetadata().getUid())
              || now.getMetadata().getOwnerReferences().isEmpty()
              || now.getMetadata().getOwnerReferences().stream()
                  .anyMatch(ref -> ownerExists(served, ref, o.getMetadata().getNamespace()))) {
            continue;
          }
          dependent.delete();
        } catch (KubernetesClientException e) {
          log.debug("could not collect {}: {}", o.getMetadata().getName(), e.getMessage());
        }
      }
    }
  }

  private boolean ownerExists(List<ResourceType> served, OwnerReference ref, String namespace) {
    for (ResourceType t : served) {
      if (t.groupVersion().equals(ref.getApiVersion()) && t.kind().equals(ref.getKind())) {
        var r = client.genericKubernetesResources(context(t));
        GenericKubernetesResource owner =
            (t.namespaced() ? r.inNamespace(namespace) : r).withName(ref.getName()).get();
        return owner != null && ref.getUid().equals(owner.getMetadata().getUid());
      }
    }
    // an owner of a kind this server does not serve cannot be checked: keep the dependent
    return true;
  }

  static ResourceDefinitionContext context(ResourceType t) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(t.group())
        .withVersion(t.version())
        .withPlural(t.plural())
        .withKind(t.kind())
        .withNamespaced(t.namespaced())
        .build();
  }
}
