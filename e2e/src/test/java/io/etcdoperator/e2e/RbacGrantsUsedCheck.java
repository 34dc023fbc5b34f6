package io.etcdoperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcdoperator.sandbox.Sandbox;
import io.etcdoperator.sandbox.SandboxConfig;
import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.Rbac;
import io.etcdoperator.sandbox.api.auth.RbacUsage;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * RBAC in {@code deploy/} grants exactly what the operator uses, as the end-to-end suite of this
 * build saw it: every sandbox that ran the real operator wrote each (verb, group, resource,
 * namespace) its ServiceAccount asked the API server for ({@link Sandbox#USAGE_PROPERTY}). Bound to
 * {@code post-integration-test} by a failsafe execution of its own, so it runs only after the e2e
 * tests; skipped when they did not all run ({@code -Dit.test=...}) or wrote nothing.
 *
 * <p>Fails on a use that the manifest in force did not grant (the operator would get a 403 on a
 * real cluster) and on a grant of {@code cluster-scope.yaml} that nothing used (a permission to
 * remove). {@code namespace-scope.yaml} must grant, in its Role, what {@code cluster-scope.yaml}
 * grants in its ClusterRole (the Helm chart renders both from one list, which HelmChartTest
 * compares with these files).
 */
class RbacGrantsUsedCheck {
  static final Path DEPLOY = Path.of("../deploy");

  /**
   * Grants that no call uses but that the operator asks for before it starts: JOSDK's leader
   * election refuses to start ("No permission to lease resource") unless a SelfSubjectRulesReview
   * says it may create, get and update leases, while fabric8's lease lock renews by patch.
   */
  static final Set<String> CHECKED_NOT_CALLED =
      Set.of(
          "update coordination.k8s.io leases",
          // ObjectWriter puts a Service back as desired when someone edited it; no e2e test edits
          // a Service (they delete it, and it is created again).
          "update  services",
          // A schedule deletes the backups past its history limits and retention; BackupE2EIT's
          // schedule does not run long enough to have any (SchedulePlanTest covers the decision).
          "delete etcd.aenix.io etcdbackups");

  record Manifest(Identity operator, Rbac rbac, List<HasMetadata> objects) {}

  static Manifest manifest(String name) throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    try (InputStream in = Files.newInputStream(DEPLOY.resolve(name))) {
      Object parsed = Serialization.unmarshal(in);
      if (parsed instanceof List<?> l) {
        l.forEach(o -> objects.add((HasMetadata) o));
      } else {
        objects.add((HasMetadata) parsed);
      }
    }
    ServiceAccount sa =
        objects.stream()
            .filter(ServiceAccount.class::isInstance)
            .map(ServiceAccount.class::cast)
            .findFirst()
            .orElseThrow();
    return new Manifest(
        Identity.serviceAccount(sa.getMetadata().getNamespace(), sa.getMetadata().getName()),
        Rbac.of(objects),
        objects);
  }

  static List<RbacUsage.Recorded> recorded() throws IOException {
    String dir = System.getProperty(Sandbox.USAGE_PROPERTY);
    assumeTrue(dir != null && Files.isDirectory(Path.of(dir)), "no e2e test wrote its RBAC usage");
    String only = System.getProperty("rbac.check.partial", "");
    boolean force = "true".equals(System.getProperty("rbac.check.force"));
    assumeFalse(
        !force && "true".equals(System.getProperty("rbac.check.backups.skipped")),
        "the backup e2e tests did not run (-Dbackup.e2e.skip=true)");
    assumeFalse(
        !force && !only.isBlank() && !only.startsWith("${"),
        "only some integration tests ran (it.test=" + only + ")");
    List<RbacUsage.Recorded> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of(dir))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".tsv")).toList()) {
        all.add(RbacUsage.read(f));
      }
    }
    assumeFalse(all.isEmpty(), "no e2e test wrote its RBAC usage");
    return all;
  }

  @Test
  void deployGrantsExactlyWhatTheOperatorUsed() throws IOException {
    List<RbacUsage.Recorded> recorded = recorded();
    Set<String> problems = new TreeSet<>();
    for (String name : List.of(SandboxConfig.CLUSTER_SCOPE, SandboxConfig.NAMESPACE_SCOPE)) {
      Manifest m = manifest(name);
      List<RbacUsage.Use> uses =
          recorded.stream()
              .filter(r -> r.rbacManifest().equals(name))
              .flatMap(r -> r.uses().stream())
              .toList();
      for (RbacUsage.Use u : uses) {
        if (!m.rbac().allows(m.operator(), u.request())) {
          problems.add(name + ": used but not granted: " + describe(u));
        }
      }
      if (!name.equals(SandboxConfig.CLUSTER_SCOPE)) {
        continue;
      }
      // The leader-election Role is the same in both manifests (checked below); leader election
      // runs in the namespaced e2e test, so its uses count for both.
      List<RbacUsage.Use> electionUses =
          recorded.stream()
              .flatMap(r -> r.uses().stream())
              .filter(u -> u.resource().equals("leases"))
              .toList();
      for (Rbac.Grant g : m.rbac().grants(m.operator())) {
        List<RbacUsage.Use> candidates =
            g.role().endsWith("leader-election")
                ? java.util.stream.Stream.concat(uses.stream(), electionUses.stream()).toList()
                : uses;
        for (String group : g.rule().getApiGroups()) {
          for (String resource : g.rule().getResources()) {
            for (String verb : g.rule().getVerbs()) {
              boolean used =
                  candidates.stream()
                      .anyMatch(
                          u ->
                              u.verb().equals(verb)
                                  && u.group().equals(group)
                                  && u.resource().equals(resource)
                                  && (g.namespace() == null
                                      || g.namespace().equals(u.namespace())));
              if (!used && !CHECKED_NOT_CALLED.contains(verb + " " + group + " " + resource)) {
                problems.add(
                    name
                        + ": granted but never used: "
                        + verb
                        + " "
                        + (group.isEmpty() ? "core" : group)
                        + " "
                        + resource
                        + " ("
                        + g.role()
                        + ")");
              }
            }
          }
        }
      }
    }
    assertThat(problems).as("RBAC of deploy/ against the calls of the e2e suite").isEmpty();
  }

  @Test
  void theNamespacedRoleGrantsWhatTheClusterRoleGrants() throws IOException {
    Manifest cluster = manifest(SandboxConfig.CLUSTER_SCOPE);
    Manifest namespaced = manifest(SandboxConfig.NAMESPACE_SCOPE);
    // StorageClasses, Nodes and PersistentVolumes are cluster-scoped: a Role cannot grant them,
    // and an operator of some namespaces goes on without them (StorageClasses, NodeWatch).
    assertThat(expand(namespaced, "Role etcd-operator"))
        .isEqualTo(
            expand(cluster, "ClusterRole etcd-operator").stream()
                .filter(
                    g ->
                        !g.contains("storageclasses")
                            && !g.contains(" nodes")
                            && !g.contains("persistentvolumes"))
                .collect(java.util.stream.Collectors.toCollection(TreeSet::new)))
        .isNotEmpty();
    assertThat(expand(namespaced, "Role etcd-operator-leader-election"))
        .isEqualTo(expand(cluster, "Role etcd-operator-leader-election"))
        .isNotEmpty();
  }

  private static Set<String> expand(Manifest m, String role) {
    Set<String> out = new TreeSet<>();
    for (Rbac.Grant g : m.rbac().grants(m.operator())) {
      if (!g.role().equals(role)) {
        continue;
      }
      PolicyRule r = g.rule();
      for (String group : r.getApiGroups()) {
        for (String resource : r.getResources()) {
          for (String verb : r.getVerbs()) {
            out.add(verb + " " + group + " " + resource);
          }
        }
      }
    }
    return out;
  }

  private static String describe(RbacUsage.Use u) {
    return u.verb()
        + " "
        + (u.group().isEmpty() ? "core" : u.group())
        + " "
        + u.resource()
        + (u.namespace().isEmpty() ? " at the cluster scope" : " in namespace " + u.namespace());
  }
}
