package io.etcdoperator.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The problems of {@code spec.podTemplate.spec}: what would collide with the operator's own pod, or
 * get around the etcd flags the operator owns ({@link EtcdFlags}).
 *
 * <p>The etcd container's command line is the operator's: {@code args} would replace its whole
 * argument list (the member's name, data directory and URLs with it), a command other than the etcd
 * binary alone could run etcd with any flags (or without the operator's), and {@code envFrom} could
 * bring any {@code ETCD_*} variable, each of which sets a flag, from a ConfigMap or Secret the
 * operator cannot read at validation. The member's data volume is the operator's: no other
 * container writes it (others may mount it read-only), and nothing is mounted at, above or inside
 * the data directory. Members restart on their own (restartPolicy Always): a member that stopped
 * for good would cost the cluster a member without anyone removing it.
 */
final class PodTemplateValidator {
  private static final String PATH = "spec.podTemplate.spec";
  private static final Map<Integer, String> ETCD_PORTS =
      Map.of(
          Names.CLIENT_PORT, Names.CLIENT_PORT_NAME,
          Names.PEER_PORT, Names.PEER_PORT_NAME,
          Names.METRICS_PORT, Names.METRICS_PORT_NAME);

  private final BiConsumer<String, String> problem;
  private Set<String> volumes = Set.of();

  private PodTemplateValidator(BiConsumer<String, String> problem) {
    this.problem = problem;
  }

  /** Reports each problem of {@code pod} as (field path, reason). */
  static void validate(PodSpec pod, BiConsumer<String, String> problem) {
    new PodTemplateValidator(problem).pod(pod);
  }

  private void pod(PodSpec pod) {
    volumes = new HashSet<>(Security.volumeNames());
    volumes.add(Names.DATA_VOLUME);
    for (int i = 0; i < pod.getVolumes().size(); i++) {
      String name = pod.getVolumes().get(i).getName();
      String field = PATH + ".volumes[" + i + "].name";
      if (name == null || name.isEmpty()) {
        problem.accept(field, "required");
      } else if (Names.DATA_VOLUME.equals(name)) {
        problem.accept(
            field,
            "'" + Names.DATA_VOLUME + "' is the operator's data volume; choose another name");
      } else if (Security.volumeNames().contains(name)) {
        problem.accept(
            field, "'" + name + "' is a volume of spec.security.tls; choose another name");
      } else if (!volumes.add(name)) {
        problem.accept(field, "duplicate volume name '" + name + "'");
      }
    }
    Set<String> names = new HashSet<>();
    containers(PATH + ".initContainers", pod.getInitContainers(), names);
    containers(PATH + ".containers", pod.getContainers(), names);
    if (pod.getRestartPolicy() != null && !"Always".equals(pod.getRestartPolicy())) {
      problem.accept(
          PATH + ".restartPolicy",
          "must be Always, got '"
              + pod.getRestartPolicy()
              + "': a member whose process stopped must start again; remove it");
    }
  }

  private void containers(String path, List<Container> containers, Set<String> names) {
    boolean init = path.endsWith("initContainers");
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String at = path + "[" + i + "]";
      if (c.getName() == null || c.getName().isEmpty()) {
        problem.accept(at + ".name", "required");
        continue;
      }
      if (!names.add(c.getName())) {
        problem.accept(at + ".name", "duplicate container name '" + c.getName() + "'");
      }
      if (init && Names.ETCD_CONTAINER.equals(c.getName())) {
        problem.accept(
            at + ".name",
            "'" + Names.ETCD_CONTAINER + "' is the etcd container's name; choose another");
      }
      boolean etcd = !init && Names.ETCD_CONTAINER.equals(c.getName());
      if (etcd) {
        etcdContainer(at, c);
      } else {
        otherContainer(at, c);
      }
      for (int j = 0; j < c.getVolumeMounts().size(); j++) {
        String volume = c.getVolumeMounts().get(j).getName();
        if (volume != null && !volumes.contains(volume)) {
          problem.accept(
              at + ".volumeMounts[" + j + "].name",
              "no volume named '" + volume + "' in " + PATH + ".volumes");
        }
      }
      if (!init) {
        ports(at, c.getPorts(), etcd);
      }
    }
  }

  private void etcdContainer(String path, Container c) {
    if (!c.getArgs().isEmpty()) {
      problem.accept(
          path + ".args",
          "would replace the operator's arguments (the member's name, data directory and URLs);"
              + " set etcd flags in spec.options instead");
    }
    List<String> command = c.getCommand();
    if (!command.isEmpty()
        && (command.size() > 1 || !command.get(0).replaceAll(".*/", "").equals("etcd"))) {
      problem.accept(
          path + ".command",
          "must be the etcd binary alone (for example [\"etcd\"] or [\"/usr/local/bin/etcd\"]),"
              + " got "
              + command
              + ": the operator passes etcd's flags; set yours in spec.options");
    }
    if (!c.getEnvFrom().isEmpty()) {
      problem.accept(
          path + ".envFrom",
          "not allowed on the etcd container: any ETCD_* variable it brings sets an etcd flag the"
              + " operator cannot check; set flags in spec.options and variables in env");
    }
    for (int i = 0; i < c.getEnv().size(); i++) {
      EnvVar env = c.getEnv().get(i);
      String field = path + ".env[" + i + "].name";
      if (Names.ENV_POD_NAME.equals(env.getName())
          || Names.ENV_POD_NAMESPACE.equals(env.getName())) {
        problem.accept(
            field, env.getName() + " is set by the operator (member identity); remove it");
      } else {
        EtcdFlags.ownedFlagOfEnv(env.getName())
            .ifPresent(
                flag ->
                    problem.accept(
                        field,
                        env.getName()
                            + " sets --"
                            + flag
                            + ", which is set by the operator ("
                            + EtcdFlags.ownedBecause(flag).orElseThrow()
                            + "); remove it"));
      }
    }
    for (int i = 0; i < c.getVolumeMounts().size(); i++) {
      VolumeMount m = c.getVolumeMounts().get(i);
      if (Names.DATA_VOLUME.equals(m.getName())) {
        problem.accept(
            path + ".volumeMounts[" + i + "].name",
            "'"
                + Names.DATA_VOLUME
                + "' is mounted by the operator at "
                + Names.DATA_MOUNT_PATH
                + "; remove it");
      } else if (m.getMountPath() != null
          && (m.getMountPath() + "/").startsWith(Security.PKI + "/")) {
        problem.accept(
            path + ".volumeMounts[" + i + "].mountPath",
            m.getMountPath()
                + " is where spec.security.tls mounts its Secrets ("
                + Security.PKI
                + "); choose another path");
      } else if (overlapsDataDir(m.getMountPath())) {
        problem.accept(
            path + ".volumeMounts[" + i + "].mountPath",
            m.getMountPath()
                + " is at, above or inside the data directory "
                + Names.DATA_DIR
                + " and would hide or replace the member's data; choose a path outside "
                + Names.DATA_MOUNT_PATH);
      }
    }
  }

  /** A sidecar or init container: it may read the member's data, never write it. */
  private void otherContainer(String path, Container c) {
    if (c.getImage() == null || c.getImage().isBlank()) {
      problem.accept(path + ".image", "required: the image this container runs");
    }
    for (int i = 0; i < c.getVolumeMounts().size(); i++) {
      VolumeMount m = c.getVolumeMounts().get(i);
      if (Names.DATA_VOLUME.equals(m.getName()) && !Boolean.TRUE.equals(m.getReadOnly())) {
        problem.accept(
            path + ".volumeMounts[" + i + "].readOnly",
            "'"
                + Names.DATA_VOLUME
                + "' is the member's data: only the etcd container writes it; mount it with"
                + " readOnly: true");
      }
    }
  }

  /** A mount at or above the data directory, or below the operator's data mount. */
  static boolean overlapsDataDir(String mountPath) {
    if (mountPath == null) {
      return false;
    }
    String m = mountPath.length() > 1 ? mountPath.replaceAll("/+$", "") : mountPath;
    return m.equals("/")
        || (Names.DATA_DIR + "/").startsWith(m + "/")
        || m.startsWith(Names.DATA_MOUNT_PATH + "/");
  }

  private void ports(String path, List<ContainerPort> ports, boolean etcd) {
    for (int i = 0; i < ports.size(); i++) {
      ContainerPort p = ports.get(i);
      String field = path + ".ports[" + i + "].containerPort";
      if (p.getContainerPort() == null) {
        problem.accept(field, "required");
        continue;
      }
      String ours = ETCD_PORTS.get(p.getContainerPort());
      if (ours != null && !(etcd && ours.equals(p.getName()))) {
        problem.accept(
            field, p.getContainerPort() + " is etcd's " + ours + " port; use another port");
      } else if (etcd
          && p.getName() != null
          && ETCD_PORTS.containsValue(p.getName())
          && ours == null) {
        problem.accept(
            field,
            "port '"
                + p.getName()
                + "' is "
                + portOf(p.getName())
                + ", where etcd listens; got "
                + p.getContainerPort());
      }
    }
  }

  private static int portOf(String name) {
    return ETCD_PORTS.entrySet().stream()
        .filter(e -> e.getValue().equals(name))
        .findFirst()
        .orElseThrow()
        .getKey();
  }
}
