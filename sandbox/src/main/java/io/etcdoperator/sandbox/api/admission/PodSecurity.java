package io.etcdoperator.sandbox.api.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Pod Security Admission's {@code baseline} and {@code restricted} levels, as the API server
 * enforces them on pods created in a namespace labelled {@code
 * pod-security.kubernetes.io/enforce=<level>}: each check that fails gives one reason with the
 * containers it concerns, in the order of the checks' ids, and the pod is refused with {@code
 * violates PodSecurity "restricted:latest": <reasons>}.
 *
 * <p>Baseline: no host namespaces, no privileged containers, no capabilities beyond the default
 * set, no hostPath volumes, no host ports, default procMount. Restricted adds: only configMap, csi,
 * downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected and secret volumes;
 * allowPrivilegeEscalation false; runAsNonRoot true (pod or every container); runAsUser not 0;
 * seccompProfile RuntimeDefault or Localhost (pod or every container); capabilities dropping ALL
 * and adding nothing but NET_BIND_SERVICE. Not checked: AppArmor, SELinux options, sysctls, Windows
 * host processes. Only pods are checked (a real server only warns about workload templates).
 */
public final class PodSecurity {
  /** The namespace label that names the enforced level. */
  public static final String ENFORCE = "pod-security.kubernetes.io/enforce";

  public static final String ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version";

  private static final Set<String> BASELINE_CAPABILITIES =
      Set.of(
          "AUDIT_WRITE",
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "MKNOD",
          "NET_BIND_SERVICE",
          "SETFCAP",
          "SETGID",
          "SETPCAP",
          "SETUID",
          "SYS_CHROOT");
  private static final Set<String> RESTRICTED_VOLUMES =
      Set.of(
          "configMap",
          "csi",
          "downwardAPI",
          "emptyDir",
          "ephemeral",
          "persistentVolumeClaim",
          "projected",
          "secret");

  private PodSecurity() {}

  /** The reasons a pod spec breaks the level ("privileged": none), in the server's order. */
  public static List<String> violations(String level, JsonNode spec) {
    if (!level.equals("baseline") && !level.equals("restricted")) {
      return List.of();
    }
    boolean restricted = level.equals("restricted");
    List<JsonNode> containers = new ArrayList<>();
    spec.path("initContainers").forEach(containers::add);
    spec.path("containers").forEach(containers::add);
    spec.path("ephemeralContainers").forEach(containers::add);
    JsonNode pod = spec.path("securityContext");
    List<String> out = new ArrayList<>();
    if (restricted) {
      containersWhere(
          containers,
          c ->
              !c.path("securityContext").path("allowPrivilegeEscalation").isBoolean()
                  || c.path("securityContext").path("allowPrivilegeEscalation").asBoolean(),
          names ->
              "allowPrivilegeEscalation != false ("
                  + names
                  + " must set securityContext.allowPrivilegeEscalation=false)",
          out);
    }
    List<String> added = new ArrayList<>();
    for (JsonNode c : containers) {
      for (JsonNode cap : c.path("securityContext").path("capabilities").path("add")) {
        if (!BASELINE_CAPABILITIES.contains(cap.asText()) && !added.contains(cap.asText())) {
          added.add(cap.asText());
        }
      }
    }
    if (!added.isEmpty()) {
      out.add(
          "non-default capabilities ("
              + containerWord(containersAdding(containers, BASELINE_CAPABILITIES))
              + " must not include "
              + quoted(added)
              + " in securityContext.capabilities.add)");
    }
    if (restricted) {
      containersWhere(
          containers,
          c -> {
            boolean dropsAll = false;
            for (JsonNode d : c.path("securityContext").path("capabilities").path("drop")) {
              dropsAll |= d.asText().equals("ALL");
            }
            return !dropsAll;
          },
          names ->
              "unrestricted capabilities ("
                  + names
                  + " must set securityContext.capabilities.drop=[\"ALL\"])",
          out);
      List<String> adds = new ArrayList<>();
      for (JsonNode c : containers) {
        for (JsonNode cap : c.path("securityContext").path("capabilities").path("add")) {
          if (!cap.asText().equals("NET_BIND_SERVICE") && !adds.contains(cap.asText())) {
            adds.add(cap.asText());
          }
        }
      }
      if (!adds.isEmpty()) {
        out.add(
            "unrestricted capabilities ("
                + containerWord(containersAdding(containers, Set.of("NET_BIND_SERVICE")))
                + " must not include "
                + quoted(adds)
                + " in securityContext.capabilities.add)");
      }
    }
    List<String> hostNs = new ArrayList<>();
    for (String f : List.of("hostNetwork", "hostPID", "hostIPC")) {
      if (spec.path(f).asBoolean(false)) {
        hostNs.add(f + "=true");
      }
    }
    if (!hostNs.isEmpty()) {
      out.add("host namespaces (" + String.join(", ", hostNs) + ")");
    }
    List<String> hostPaths = new ArrayList<>();
    for (JsonNode v : spec.path("volumes")) {
      if (v.has("hostPath")) {
        hostPaths.add(v.path("name").asText());
      }
    }
    if (!hostPaths.isEmpty()) {
      out.add(
          "hostPath volumes ("
              + (hostPaths.size() == 1 ? "volume " : "volumes ")
              + quoted(hostPaths)
              + ")");
    }
    List<String> ports = new ArrayList<>();
    List<String> portContainers = new ArrayList<>();
    for (JsonNode c : containers) {
      for (JsonNode p : c.path("ports")) {
        if (p.path("hostPort").asInt(0) != 0) {
          ports.add(p.path("hostPort").asText());
          if (!portContainers.contains(c.path("name").asText())) {
            portContainers.add(c.path("name").asText());
          }
        }
      }
    }
    if (!ports.isEmpty()) {
      out.add(
          "hostPort ("
              + (portContainers.size() == 1 ? "container " : "containers ")
              + quoted(portContainers)
              + " uses "
              + (ports.size() == 1 ? "hostPort " : "hostPorts ")
              + String.join(", ", ports)
              + ")");
    }
    containersWhere(
        containers,
        c -> c.path("securityContext").path("privileged").asBoolean(false),
        names -> "privileged (" + names + " must not set securityContext.privileged=true)",
        out);
    containersWhere(
        containers,
        c -> !c.path("securityContext").path("procMount").asText("Default").equals("Default"),
        names -> "procMount (" + names + " must not set securityContext.procMount to \"Unmasked\")",
        out);
    if (restricted) {
      Map<String, String> bad = new LinkedHashMap<>();
      for (JsonNode v : spec.path("volumes")) {
        for (var it = v.fieldNames(); it.hasNext(); ) {
          String f = it.next();
          if (!f.equals("name") && !RESTRICTED_VOLUMES.contains(f)) {
            bad.put(v.path("name").asText(), f);
          }
        }
      }
      if (!bad.isEmpty()) {
        out.add(
            "restricted volume types ("
                + bad.entrySet().stream()
                    .map(
                        e ->
                            "volume \""
                                + e.getKey()
                                + "\" uses restricted volume type \""
                                + e.getValue()
                                + "\"")
                    .collect(Collectors.joining(", "))
                + ")");
      }
      boolean podNonRoot = pod.path("runAsNonRoot").asBoolean(false);
      boolean podSaysRoot = pod.path("runAsNonRoot").isBoolean() && !podNonRoot;
      List<String> notNonRoot = new ArrayList<>();
      for (JsonNode c : containers) {
        JsonNode v = c.path("securityContext").path("runAsNonRoot");
        if (v.isBoolean() ? !v.asBoolean() : !podNonRoot) {
          notNonRoot.add(c.path("name").asText());
        }
      }
      if (podSaysRoot || !notNonRoot.isEmpty()) {
        out.add(
            "runAsNonRoot != true ("
                + (podSaysRoot
                    ? "pod must not set securityContext.runAsNonRoot=false"
                    : "pod or "
                        + containerWord(notNonRoot)
                        + " must set securityContext.runAsNonRoot=true")
                + ")");
      }
      List<String> root = new ArrayList<>();
      if (pod.path("runAsUser").isInt() && pod.path("runAsUser").asInt() == 0) {
        root.add("pod");
      }
      List<String> rootContainers = new ArrayList<>();
      for (JsonNode c : containers) {
        JsonNode u = c.path("securityContext").path("runAsUser");
        if (u.isInt() && u.asInt() == 0) {
          rootContainers.add(c.path("name").asText());
        }
      }
      if (!rootContainers.isEmpty()) {
        root.add(containerWord(rootContainers));
      }
      if (!root.isEmpty()) {
        out.add("runAsUser=0 (" + String.join(" and ", root) + " must not set runAsUser=0)");
      }
      String podSeccomp = pod.path("seccompProfile").path("type").asText("");
      List<String> noSeccomp = new ArrayList<>();
      for (JsonNode c : containers) {
        String t = c.path("securityContext").path("seccompProfile").path("type").asText(podSeccomp);
        if (!t.equals("RuntimeDefault") && !t.equals("Localhost")) {
          noSeccomp.add(c.path("name").asText());
        }
      }
      if (!noSeccomp.isEmpty()) {
        out.add(
            "seccompProfile (pod or "
                + containerWord(noSeccomp)
                + " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or"
                + " \"Localhost\")");
      }
    }
    return out;
  }

  private static void containersWhere(
      List<JsonNode> containers,
      Predicate<JsonNode> bad,
      Function<String, String> reason,
      List<String> out) {
    List<String> names = new ArrayList<>();
    for (JsonNode c : containers) {
      if (bad.test(c)) {
        names.add(c.path("name").asText());
      }
    }
    if (!names.isEmpty()) {
      out.add(reason.apply(containerWord(names)));
    }
  }

  private static List<String> containersAdding(List<JsonNode> containers, Set<String> allowed) {
    List<String> names = new ArrayList<>();
    for (JsonNode c : containers) {
      for (JsonNode cap : c.path("securityContext").path("capabilities").path("add")) {
        if (!allowed.contains(cap.asText()) && !names.contains(c.path("name").asText())) {
          names.add(c.path("name").asText());
        }
      }
    }
    return names;
  }

  private static String containerWord(List<String> names) {
    return (names.size() == 1 ? "container " : "containers ") + quoted(names);
  }

  private static String quoted(List<String> names) {
    return names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
  }
}
