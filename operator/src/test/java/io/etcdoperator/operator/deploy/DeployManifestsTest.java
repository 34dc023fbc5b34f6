package io.etcdoperator.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the plain manifests under {@code deploy/} promise: least privilege, a locked-down pod. */
class DeployManifestsTest {
  /** Every API call the operator makes, as "group/resource verb" ("" is the core group). */
  static final Set<String> OPERATOR_USES =
      Set.of(
          "etcd.aenix.io/etcdclusters get",
          "etcd.aenix.io/etcdclusters list",
          "etcd.aenix.io/etcdclusters watch",
          "etcd.aenix.io/etcdclusters update",
          "etcd.aenix.io/etcdclusters patch",
          "etcd.aenix.io/etcdclusters/status get",
          "etcd.aenix.io/etcdclusters/status update",
          "etcd.aenix.io/etcdclusters/status patch",
          "etcd.aenix.io/etcdclusters/finalizers update",
          "etcd.aenix.io/etcdbackups get",
          "etcd.aenix.io/etcdbackups list",
          "etcd.aenix.io/etcdbackups watch",
          "etcd.aenix.io/etcdbackups create",
          "etcd.aenix.io/etcdbackups update",
          "etcd.aenix.io/etcdbackups patch",
          "etcd.aenix.io/etcdbackups delete",
          "etcd.aenix.io/etcdbackupschedules get",
          "etcd.aenix.io/etcdbackupschedules list",
          "etcd.aenix.io/etcdbackupschedules watch",
          "etcd.aenix.io/etcdbackupschedules update",
          "etcd.aenix.io/etcdbackupschedules patch",
          "etcd.aenix.io/etcdbackups/status get",
          "etcd.aenix.io/etcdbackups/status update",
          "etcd.aenix.io/etcdbackups/status patch",
          "etcd.aenix.io/etcdbackupschedules/status get",
          "etcd.aenix.io/etcdbackupschedules/status update",
          "etcd.aenix.io/etcdbackupschedules/status patch",
          "etcd.aenix.io/etcdbackups/finalizers update",
          "etcd.aenix.io/etcdbackupschedules/finalizers update",
          "/pods create",
          "apps/statefulsets get",
          "apps/statefulsets list",
          "apps/statefulsets watch",
          "apps/statefulsets create",
          "apps/statefulsets update",
          "apps/statefulsets patch",
          "apps/statefulsets delete",
          "/services get",
          "/services list",
          "/services watch",
          "/services create",
          "/services update",
          "/services patch",
          "/services delete",
          "/configmaps get",
          "/configmaps list",
          "/configmaps watch",
          "/configmaps create",
          "/configmaps update",
          "/configmaps patch",
          "/configmaps delete",
          "policy/poddisruptionbudgets get",
          "policy/poddisruptionbudgets list",
          "policy/poddisruptionbudgets watch",
          "policy/poddisruptionbudgets create",
          "policy/poddisruptionbudgets update",
          "policy/poddisruptionbudgets patch",
          "policy/poddisruptionbudgets delete",
          "/pods get",
          "/pods list",
          "/pods watch",
          "/pods create",
          "/pods delete",
          "/persistentvolumeclaims get",
          "/persistentvolumeclaims list",
          "/persistentvolumeclaims watch",
          "/persistentvolumeclaims patch",
          "/persistentvolumeclaims delete",
          "/events create",
          "/events patch");

  static final Set<String> LEADER_ELECTION =
      Set.of(
          "coordination.k8s.io/leases get",
          "coordination.k8s.io/leases create",
          "coordination.k8s.io/leases update");

  static Map<String, JsonNode> objects(String file) throws IOException {
    return HelmChartTest.objects(Files.readString(HelmChartTest.DEPLOY.resolve(file)));
  }

  static Set<String> grants(JsonNode role) {
    Set<String> grants = new TreeSet<>();
    for (JsonNode rule : role.path("rules")) {
      for (JsonNode group : rule.path("apiGroups")) {
        for (JsonNode resource : rule.path("resources")) {
          for (JsonNode verb : rule.path("verbs")) {
            grants.add(group.asText() + "/" + resource.asText() + " " + verb.asText());
          }
        }
      }
    }
    return grants;
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster-scope.yaml", "namespace-scope.yaml"})
  void rbacGrantsExactlyWhatTheOperatorUses(String file) throws IOException {
    Map<String, JsonNode> objects = objects(file);
    JsonNode clusters =
        file.startsWith("cluster")
            ? objects.get("ClusterRole etcd-operator")
            : objects.get("Role etcd-operator/etcd-operator");
    assertThat(grants(clusters)).isEqualTo(new TreeSet<>(OPERATOR_USES));
    assertThat(grants(objects.get("Role etcd-operator/etcd-operator-leader-election")))
        .isEqualTo(new TreeSet<>(LEADER_ELECTION));
    if (file.startsWith("namespace")) {
      assertThat(objects.keySet()).noneMatch(k -> k.startsWith("Cluster"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster-scope.yaml", "namespace-scope.yaml"})
  void operatorPodIsNonRootReadOnlyBoundedAndProbed(String file) throws IOException {
    JsonNode pod =
        objects(file).get("Deployment etcd-operator/etcd-operator").at("/spec/template/spec");
    JsonNode c = pod.at("/containers/0");
    assertThat(pod.at("/serviceAccountName").asText()).isEqualTo("etcd-operator");
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(c.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(c.at("/securityContext/allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(c.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(c.at("/resources/limits/memory").asText()).isNotEmpty();
    assertThat(c.at("/args/0").asText()).isEqualTo("run");
    assertThat(c.at("/ports/0/containerPort").asInt()).isEqualTo(8080);
    assertThat(c.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(c.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(c.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/tmp");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster-scope.yaml", "namespace-scope.yaml"})
  void watchedNamespacesAreWhatTheRbacAllows(String file) throws IOException {
    JsonNode env =
        objects(file)
            .get("Deployment etcd-operator/etcd-operator")
            .at("/spec/template/spec/containers/0/env");
    String watched = "";
    for (JsonNode e : env) {
      if (e.path("name").asText().equals("WATCH_NAMESPACES")) {
        watched = e.path("value").asText();
      }
    }
    assertThat(watched).isEqualTo(file.startsWith("cluster") ? "" : "etcd-operator");
  }

  @Test
  void imageCopiesTheProductJarTheLauncherRuns() throws IOException {
    String dockerfile = Files.readString(HelmChartTest.DEPLOY.resolve("image/Dockerfile"));
    String launcher = Files.readString(Path.of("../etcd-operator"));
    assertThat(launcher).contains("product/target/etcd-operator.jar");
    assertThat(dockerfile)
        .contains("COPY product/target/etcd-operator.jar ")
        .containsPattern("(?m)^FROM \\S+-jre")
        .containsPattern("(?m)^USER \\d+");
  }
}
