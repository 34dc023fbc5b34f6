package io.etcdoperator.operator.model;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/**
 * The security contexts of the "restricted" Pod Security level, for the pods the operator shapes
 * besides members (backup and archiver agents) and for the containers it adds to members (the
 * restore init container): without them such pods are refused in a namespace that enforces it.
 */
final class Restricted {
  private Restricted() {}

  /** No privilege escalation, no capability; a read-only root file system when asked. */
  static SecurityContext container(boolean readOnlyRoot) {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(readOnlyRoot ? true : null)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .build();
  }

  /** A fixed non-root user and group, the volume's group, the runtime's seccomp profile. */
  static PodSecurityContext pod(long uid) {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(uid)
        .withRunAsGroup(uid)
        .withFsGroup(uid)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }
}
