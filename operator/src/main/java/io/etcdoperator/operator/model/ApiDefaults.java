package io.etcdoperator.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.stream.Stream;

/**
 * Writes the values a real API server fills in when a field is left out, so that the object the
 * model builds equals the one read back and a compare of the two stays quiet (the trap of an
 * always-updating StatefulSet: JOSDK #1989, Keycloak #38846). Only fields that the server defaults
 * inside the objects we send are covered; server-assigned ones ({@code clusterIP}, {@code
 * ipFamilies}, status) are not ours to write.
 */
final class ApiDefaults {
  static final String TCP = "TCP";
  private static final int DEFAULT_MODE = 420; // 0644

  private ApiDefaults() {}

  /** Pod-level defaults (SetDefaults_PodSpec) and those of every container and volume. */
  static void podSpec(PodSpec spec) {
    if (spec.getRestartPolicy() == null) {
      spec.setRestartPolicy("Always");
    }
    if (spec.getTerminationGracePeriodSeconds() == null) {
      spec.setTerminationGracePeriodSeconds(30L);
    }
    if (spec.getDnsPolicy() == null) {
      spec.setDnsPolicy("ClusterFirst");
    }
    if (spec.getSchedulerName() == null) {
      spec.setSchedulerName("default-scheduler");
    }
    if (spec.getSecurityContext() == null) {
      spec.setSecurityContext(new PodSecurityContext());
    }
    Stream.concat(spec.getInitContainers().stream(), spec.getContainers().stream())
        .forEach(ApiDefaults::container);
    spec.getVolumes().forEach(ApiDefaults::volume);
  }

  static void container(Container c) {
    if (c.getImagePullPolicy() == null) {
      c.setImagePullPolicy(pullPolicyOf(c.getImage()));
    }
    if (c.getTerminationMessagePath() == null) {
      c.setTerminationMessagePath("/dev/termination-log");
    }
    if (c.getTerminationMessagePolicy() == null) {
      c.setTerminationMessagePolicy("File");
    }
    if (c.getResources() == null) {
      c.setResources(new ResourceRequirements());
    }
    for (ContainerPort p : c.getPorts()) {
      if (p.getProtocol() == null) {
        p.setProtocol(TCP);
      }
    }
    for (EnvVar e : c.getEnv()) {
      if (e.getValueFrom() != null
          && e.getValueFrom().getFieldRef() != null
          && e.getValueFrom().getFieldRef().getApiVersion() == null) {
        e.getValueFrom().getFieldRef().setApiVersion("v1");
      }
    }
    Stream.of(c.getLivenessProbe(), c.getReadinessProbe(), c.getStartupProbe())
        .forEach(ApiDefaults::probe);
  }

  /**
   * {@code Always} for an image without a tag or with {@code :latest} (and no digest), else {@code
   * IfNotPresent}: the server's rule.
   */
  static String pullPolicyOf(String image) {
    if (image == null || image.contains("@")) {
      return "IfNotPresent";
    }
    String lastPart = image.substring(image.lastIndexOf('/') + 1);
    int colon = lastPart.lastIndexOf(':');
    boolean latest = colon < 0 || lastPart.substring(colon + 1).equals("latest");
    return latest ? "Always" : "IfNotPresent";
  }

  static void probe(Probe p) {
    if (p == null) {
      return;
    }
    if (p.getTimeoutSeconds() == null) {
      p.setTimeoutSeconds(1);
    }
    if (p.getPeriodSeconds() == null) {
      p.setPeriodSeconds(10);
    }
    if (p.getSuccessThreshold() == null) {
      p.setSuccessThreshold(1);
    }
    if (p.getFailureThreshold() == null) {
      p.setFailureThreshold(3);
    }
    if (p.getHttpGet() != null && p.getHttpGet().getScheme() == null) {
      p.getHttpGet().setScheme("HTTP");
    }
  }

  static void volume(Volume v) {
    if (v.getConfigMap() != null && v.getConfigMap().getDefaultMode() == null) {
      v.getConfigMap().setDefaultMode(DEFAULT_MODE);
    }
    if (v.getSecret() != null && v.getSecret().getDefaultMode() == null) {
      v.getSecret().setDefaultMode(DEFAULT_MODE);
    }
    if (v.getProjected() != null && v.getProjected().getDefaultMode() == null) {
      v.getProjected().setDefaultMode(DEFAULT_MODE);
    }
    if (v.getDownwardAPI() != null && v.getDownwardAPI().getDefaultMode() == null) {
      v.getDownwardAPI().setDefaultMode(DEFAULT_MODE);
    }
  }

  /**
   * Service defaults: type, session affinity, traffic policies, load balancer node ports, each
   * port's protocol and target. Node ports and cluster IPs are assigned, not defaulted: not ours.
   */
  static void serviceSpec(ServiceSpec spec) {
    if (spec.getType() == null) {
      spec.setType("ClusterIP");
    }
    if (spec.getSessionAffinity() == null) {
      spec.setSessionAffinity("None");
    }
    if (spec.getInternalTrafficPolicy() == null && !"ExternalName".equals(spec.getType())) {
      spec.setInternalTrafficPolicy("Cluster");
    }
    boolean external = "NodePort".equals(spec.getType()) || "LoadBalancer".equals(spec.getType());
    if (external && spec.getExternalTrafficPolicy() == null) {
      spec.setExternalTrafficPolicy("Cluster");
    }
    if ("LoadBalancer".equals(spec.getType()) && spec.getAllocateLoadBalancerNodePorts() == null) {
      spec.setAllocateLoadBalancerNodePorts(true);
    }
    for (ServicePort p : spec.getPorts()) {
      if (p.getProtocol() == null) {
        p.setProtocol(TCP);
      }
      if (p.getTargetPort() == null && p.getPort() != null) {
        p.setTargetPort(new IntOrString(p.getPort()));
      }
    }
  }
}
