package io.etcdoperator.sandbox.kubelet;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kubelet would hand the container runtime for one container: the argv and the
 * environment, resolved as Kubernetes does.
 *
 * <p>Environment: {@code envFrom} sources first (ConfigMaps and Secrets, with their prefix), then
 * {@code env} in order, each value {@code $(VAR)}-expanded against what is defined so far; {@code
 * valueFrom} reads {@code fieldRef} (metadata.name/namespace/uid/labels/annotations, spec.nodeName,
 * spec.serviceAccountName, status.podIP/podIPs/hostIP), {@code configMapKeyRef}, {@code
 * secretKeyRef} and {@code resourceFieldRef}. A missing non-optional reference is a {@link
 * ConfigError} (the kubelet's CreateContainerConfigError). Command: {@code command} else the
 * image's entrypoint, then {@code args}, all expanded against the final environment.
 *
 * <p>The image is never pulled: an etcd container (command whose basename is {@code etcd}, or no
 * command at all, which means the image's entrypoint) runs the local etcd of the version its
 * image's tag names ({@link EtcdImages}); {@code etcdctl} and {@code etcdutl} run that version's
 * tools; any other command runs as written on this machine.
 *
 * @param argv the command line, binary first
 * @param env the environment
 * @param etcd whether this runs the local etcd binary
 * @param image what the image resolved to, for the log (empty when no etcd binary runs)
 */
public record ContainerConfig(
    List<String> argv, Map<String, String> env, boolean etcd, Optional<String> image) {
  /** The etcd tools whose local binaries follow the image's version. */
  private static final List<String> ETCD_TOOLS = List.of("etcd", "etcdctl", "etcdutl");

  private static final Pattern LABEL_REF =
      Pattern.compile("metadata\\.(labels|annotations)\\['(.+)'\\]");

  /** A reference the container needs cannot be resolved yet. */
  public static class ConfigError extends Exception {
    public ConfigError(String message) {
      super(message);
    }
  }

  /** Reads ConfigMaps and Secrets of the pod's namespace; null when absent. */
  public interface Objects {
    ConfigMap configMap(String namespace, String name);

    Secret secret(String namespace, String name);
  }

  /** Resolves a container of a pod that has the address {@code podIp}. */
  public static ContainerConfig resolve(
      Pod pod, Container c, String podIp, EtcdImages images, Objects objects) throws ConfigError {
    String ns = pod.getMetadata().getNamespace();
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvFromSource from : nullSafe(c.getEnvFrom())) {
      String prefix = from.getPrefix() == null ? "" : from.getPrefix();
      if (from.getConfigMapRef() != null) {
        ConfigMap cm = objects.configMap(ns, from.getConfigMapRef().getName());
        if (cm == null) {
          if (!Boolean.TRUE.equals(from.getConfigMapRef().getOptional())) {
            throw new ConfigError(
                "configmap \"" + from.getConfigMapRef().getName() + "\" not found");
          }
          continue;
        }
        if (cm.getData() != null) {
          cm.getData().forEach((k, v) -> env.put(prefix + k, v));
        }
      }
      if (from.getSecretRef() != null) {
        Secret s = objects.secret(ns, from.getSecretRef().getName());
        if (s == null) {
          if (!Boolean.TRUE.equals(from.getSecretRef().getOptional())) {
            throw new ConfigError("secret \"" + from.getSecretRef().getName() + "\" not found");
          }
          continue;
        }
        secretData(s).forEach((k, v) -> env.put(prefix + k, v));
      }
    }
    for (EnvVar e : nullSafe(c.getEnv())) {
      String value =
          e.getValueFrom() != null
              ? valueFrom(pod, c, e.getName(), e.getValueFrom(), podIp, objects)
              : EnvExpansion.expand(e.getValue() == null ? "" : e.getValue(), env);
      if (value != null) {
        env.put(e.getName(), value);
      }
    }
    List<String> command = nullSafe(c.getCommand());
    if (command.isEmpty() && OperatorImage.matches(c.getImage())) {
      // the operator's image: its entry point and environment, mapped here (see OperatorImage)
      List<String> args =
          nullSafe(c.getArgs()).stream().map(a -> EnvExpansion.expand(a, env)).toList();
      Quantity memory =
          c.getResources() == null || c.getResources().getLimits() == null
              ? null
              : c.getResources().getLimits().get("memory");
      return new ContainerConfig(
          OperatorImage.argv(args, memory), OperatorImage.env(env), false, Optional.empty());
    }
    List<String> argv = new ArrayList<>();
    boolean etcd;
    String tool;
    if (command.isEmpty()) {
      etcd = true;
      tool = "etcd";
    } else {
      String first = EnvExpansion.expand(command.get(0), env);
      tool = first.substring(first.lastIndexOf('/') + 1);
      etcd = tool.equals("etcd");
    }
    Optional<String> image = Optional.empty();
    if (ETCD_TOOLS.contains(tool)) {
      EtcdImages.Resolution r = images.resolve(c.getImage());
      argv.add(r.tool(tool));
      image =
          Optional.of(
              c.getImage()
                  + " runs the sandbox's etcd "
                  + r.version()
                  + (r.patchDiffers()
                      ? " (the image names " + r.requested().orElseThrow() + ")"
                      : ""));
    } else {
      argv.add(EnvExpansion.expand(command.get(0), env));
    }
    command.stream().skip(1).map(a -> EnvExpansion.expand(a, env)).forEach(argv::add);
    nullSafe(c.getArgs()).stream().map(a -> EnvExpansion.expand(a, env)).forEach(argv::add);
    return new ContainerConfig(List.copyOf(argv), env, etcd, image);
  }

  private static String valueFrom(
      Pod pod, Container c, String name, EnvVarSource src, String podIp, Objects objects)
      throws ConfigError {
    String ns = pod.getMetadata().getNamespace();
    if (src.getFieldRef() != null) {
      return field(pod, src.getFieldRef(), podIp);
    }
    if (src.getConfigMapKeyRef() != null) {
      var ref = src.getConfigMapKeyRef();
      ConfigMap cm = objects.configMap(ns, ref.getName());
      String v = cm == null || cm.getData() == null ? null : cm.getData().get(ref.getKey());
      if (v == null && !Boolean.TRUE.equals(ref.getOptional())) {
        throw new ConfigError(
            cm == null
                ? "configmap \"" + ref.getName() + "\" not found"
                : "couldn't find key "
                    + ref.getKey()
                    + " in ConfigMap "
                    + ns
                    + "/"
                    + ref.getName());
      }
      return v;
    }
    if (src.getSecretKeyRef() != null) {
      var ref = src.getSecretKeyRef();
      Secret s = objects.secret(ns, ref.getName());
      String v = s == null ? null : secretData(s).get(ref.getKey());
      if (v == null && !Boolean.TRUE.equals(ref.getOptional())) {
        throw new ConfigError(
            s == null
                ? "secret \"" + ref.getName() + "\" not found"
                : "couldn't find key " + ref.getKey() + " in Secret " + ns + "/" + ref.getName());
      }
      return v;
    }
    if (src.getResourceFieldRef() != null) {
      String resource = src.getResourceFieldRef().getResource();
      Map<String, Quantity> limits =
          c.getResources() == null || c.getResources().getLimits() == null
              ? Map.of()
              : c.getResources().getLimits();
      Quantity q = limits.get(resource.substring(resource.indexOf('.') + 1));
      if (q != null) {
        return q.getAmount();
      }
      return resource.endsWith("cpu")
          ? String.valueOf(Runtime.getRuntime().availableProcessors())
          : String.valueOf(Runtime.getRuntime().maxMemory());
    }
    throw new ConfigError("env " + name + ": unsupported valueFrom");
  }

  private static String field(Pod pod, ObjectFieldSelector ref, String podIp) throws ConfigError {
    String path = ref.getFieldPath();
    var meta = pod.getMetadata();
    switch (path) {
      case "metadata.name":
        return meta.getName();
      case "metadata.namespace":
        return meta.getNamespace();
      case "metadata.uid":
        return meta.getUid();
      case "spec.nodeName":
        return pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
      case "spec.serviceAccountName":
        return pod.getSpec().getServiceAccountName() == null
            ? "default"
            : pod.getSpec().getServiceAccountName();
      case "status.podIP":
      case "status.podIPs":
        return podIp;
      case "status.hostIP":
      case "status.hostIPs":
        return "127.0.0.1";
      default:
        Matcher m = LABEL_REF.matcher(path);
        if (m.matches()) {
          Map<String, String> map =
              m.group(1).equals("labels") ? meta.getLabels() : meta.getAnnotations();
          return map == null ? "" : map.getOrDefault(m.group(2), "");
        }
        throw new ConfigError("unsupported fieldRef " + path);
    }
  }

  private static Map<String, String> secretData(Secret s) {
    Map<String, String> out = new LinkedHashMap<>();
    if (s.getData() != null) {
      s.getData()
          .forEach(
              (k, v) ->
                  out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    if (s.getStringData() != null) {
      out.putAll(s.getStringData());
    }
    return out;
  }

  private static <T> List<T> nullSafe(List<T> l) {
    return l == null ? List.of() : l;
  }
}
