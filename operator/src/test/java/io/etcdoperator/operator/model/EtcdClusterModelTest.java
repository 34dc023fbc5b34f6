package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The objects of one cluster, field by field where an issue or docs/design.md decides them. */
class EtcdClusterModelTest {
  final EtcdClusterModel defaults = TestClusters.model("{}");

  @Test
  void replicasDefaultToThree() {
    assertThat(defaults.replicas()).isEqualTo(3);
    assertThat(TestClusters.model("replicas: 0").replicas()).isZero();
  }

  @Test
  void aResourceWithoutSpecIsTheDefaultSpec() throws InvalidSpecException {
    var cluster = TestClusters.withSpec("");
    assertThat(cluster.getSpec()).isNull();
    EtcdClusterModel model = EtcdClusterModel.of(cluster);
    assertThat(model.replicas()).isEqualTo(3);
    assertThat(model.statefulSet(3)).isEqualTo(defaults.statefulSet(3));
  }

  /**
   * The model keeps its pod template compacted ({@link Compactor}: unchangeable maps and lists) and
   * hands out copies, each equal to the template as built and the caller's own to change.
   */
  @Test
  void thePodTemplateHandedOutIsTheBuiltOneAndEachCopyIsItsOwn() throws InvalidSpecException {
    var cluster = TestClusters.withSpec("replicas: 3");
    PodTemplateSpec built = MemberPod.template("demo", cluster.getSpec());
    EtcdClusterModel model = EtcdClusterModel.of(cluster);
    PodTemplateSpec copy = model.podTemplate();
    assertThat(copy).isEqualTo(built);
    copy.getSpec().getContainers().get(0).getArgs().add("--changed");
    copy.getMetadata().getLabels().put("changed", "yes");
    copy.getSpec().getVolumes().clear();
    assertThat(model.podTemplate()).isEqualTo(built);
  }

  @Test
  void statefulSetHasStableIdentityParallelStartAndOperatorDrivenRestarts() {
    StatefulSet sts = defaults.statefulSet(2);
    assertThat(sts.getMetadata().getName()).isEqualTo("demo");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(2);
    assertThat(sts.getSpec().getServiceName()).isEqualTo("demo-headless");
    assertThat(sts.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    assertThat(sts.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
    assertThat(sts.getSpec().getUpdateStrategy().getRollingUpdate()).isNull();
    assertThat(sts.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
    assertThat(sts.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Names.selectorLabels("demo"));
    assertThat(sts.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(sts.getSpec().getSelector().getMatchLabels());
  }

  @Test
  void defaultStorageIsA4GiClaimPerMemberRetainedOnScaleDownAndDeletion() {
    StatefulSet sts = defaults.statefulSet(3);
    assertThat(defaults.usesPersistentStorage()).isTrue();
    assertThat(sts.getSpec().getVolumeClaimTemplates()).hasSize(1);
    var claim = sts.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(claim.getMetadata().getName()).isEqualTo("data");
    assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(claim.getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("4Gi"));
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled())
        .isEqualTo("Retain");
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
        .isEqualTo("Retain");
    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes()).isEmpty();
  }

  @Test
  void customClaimTemplateKeepsItsSizeClassAndMetadataAndDefaultsTheRest() {
    EtcdClusterModel model =
        TestClusters.model(
            """
            storage:
              volumeClaimTemplate:
                metadata:
                  labels: {backup: daily}
                spec:
                  storageClassName: fast-ssd
                  resources: {requests: {storage: 20Gi}}
              persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}
            """);
    StatefulSet sts = model.statefulSet(3);
    var claim = sts.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(claim.getMetadata().getLabels()).containsEntry("backup", "daily");
    assertThat(claim.getSpec().getStorageClassName()).isEqualTo("fast-ssd");
    assertThat(claim.getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("20Gi"));
    assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(claim.getSpec().getVolumeMode()).isEqualTo("Filesystem");
    // The StatefulSet never deletes a claim (hibernation and a rebuild scale it to 0): the spec's
    // policy is the operator's, applied to a member it removed from etcd on a scale-down.
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenScaled())
        .isEqualTo("Retain");
    assertThat(sts.getSpec().getPersistentVolumeClaimRetentionPolicy().getWhenDeleted())
        .isEqualTo("Retain");
    assertThat(model.claimPolicy()).isEqualTo(new Target.ClaimPolicy(true, false));
  }

  @Test
  void emptyDirStorageHasNoClaims() {
    EtcdClusterModel model = TestClusters.model("storage: {emptyDir: {}}");
    assertThat(model.usesPersistentStorage()).isFalse();
    assertThat(model.statefulSet(3).getSpec().getVolumeClaimTemplates()).isEmpty();
  }

  @Test
  void headlessServicePublishesMembersBeforeTheyAreReady() {
    Service svc = defaults.headlessService();
    assertThat(svc.getMetadata().getName()).isEqualTo("demo-headless");
    assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(svc.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(svc.getSpec().getSelector()).isEqualTo(Names.selectorLabels("demo"));
    assertThat(svc.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getPort)
        .containsExactly(tuple("peer", 2380), tuple("client", 2379));
  }

  @Test
  void clientServiceServesTheClientPort() {
    Service svc = defaults.clientService();
    assertThat(svc.getMetadata().getName()).isEqualTo("demo");
    assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(svc.getSpec().getClusterIP()).isNull();
    assertThat(svc.getSpec().getPorts()).hasSize(1);
    assertThat(svc.getSpec().getPorts().get(0).getTargetPort()).isEqualTo(new IntOrString(2379));
  }

  @Test
  void serviceTemplatesOverlayMetadataAndSpecAndMergePortsByName() {
    EtcdClusterModel model =
        TestClusters.model(
            """
            serviceTemplate:
              metadata:
                annotations: {example.com/internal: "true"}
              spec:
                type: LoadBalancer
                ports:
                - {name: client, port: 443}
            headlessServiceTemplate:
              metadata:
                labels: {monitoring: enabled}
            """);
    Service client = model.clientService();
    assertThat(client.getMetadata().getAnnotations()).containsEntry("example.com/internal", "true");
    assertThat(client.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(client.getSpec().getPorts()).hasSize(1);
    assertThat(client.getSpec().getPorts().get(0).getPort()).isEqualTo(443);
    assertThat(client.getSpec().getPorts().get(0).getTargetPort()).isEqualTo(new IntOrString(2379));
    Service headless = model.headlessService();
    assertThat(headless.getMetadata().getLabels())
        .containsEntry("monitoring", "enabled")
        .containsAllEntriesOf(Names.labels("demo"));
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
  }

  @Test
  void clusterStateConfigMapCarriesWhatEtcdReadsFromItsEnvironment() {
    ClusterState state = ClusterState.bootstrap(defaults);
    ConfigMap cm = defaults.clusterStateConfigMap(state);
    assertThat(cm.getMetadata().getName()).isEqualTo("demo-cluster-state");
    assertThat(cm.getData())
        .containsEntry(
            "ETCD_INITIAL_CLUSTER",
            "demo-0=http://demo-0.demo-headless.prod.svc:2380,"
                + "demo-1=http://demo-1.demo-headless.prod.svc:2380,"
                + "demo-2=http://demo-2.demo-headless.prod.svc:2380")
        .containsEntry("ETCD_INITIAL_CLUSTER_STATE", "new")
        .containsEntry("ETCD_INITIAL_CLUSTER_TOKEN", "prod-demo-" + TestClusters.UID)
        .hasSize(3);
  }

  @Test
  void existingClusterStateNamesTheMembersItIsGiven() {
    ClusterState state =
        ClusterState.existing(
            defaults,
            List.of(InitialMember.of("prod", "demo", 0), InitialMember.of("prod", "demo", 2)));
    assertThat(defaults.clusterStateConfigMap(state).getData())
        .containsEntry("ETCD_INITIAL_CLUSTER_STATE", "existing")
        .containsEntry(
            "ETCD_INITIAL_CLUSTER",
            "demo-0=http://demo-0.demo-headless.prod.svc:2380,"
                + "demo-2=http://demo-2.demo-headless.prod.svc:2380");
  }

  @Test
  void bootstrapOfAClusterOfZeroNamesNoMember() {
    ClusterState state = ClusterState.bootstrap(TestClusters.model("replicas: 0"));
    assertThat(state.members()).isEmpty();
    assertThat(state.initialCluster()).isEmpty();
  }

  @ParameterizedTest(name = "{0} members -> minAvailable {1}")
  @CsvSource({"2, 2", "3, 2", "4, 3", "5, 3", "7, 4"})
  void defaultBudgetKeepsQuorum(int members, int minAvailable) {
    PodDisruptionBudget pdb = defaults.podDisruptionBudget(members).orElseThrow();
    assertThat(pdb.getSpec().getMinAvailable()).isEqualTo(new IntOrString(minAvailable));
    assertThat(pdb.getSpec().getMaxUnavailable()).isNull();
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Names.selectorLabels("demo"));
  }

  @Test
  void noBudgetBelowTwoMembersWithoutTemplate() {
    assertThat(defaults.podDisruptionBudget(1)).isEmpty();
    assertThat(defaults.podDisruptionBudget(0)).isEmpty();
    assertThat(TestClusters.model("replicas: 1").podDisruptionBudget()).isEmpty();
    assertThat(defaults.podDisruptionBudget()).isPresent();
  }

  @Test
  void budgetTemplateWins() {
    EtcdClusterModel model =
        TestClusters.model(
            """
            replicas: 1
            podDisruptionBudgetTemplate:
              metadata: {labels: {team: storage}}
              spec: {maxUnavailable: 0}
            """);
    PodDisruptionBudget pdb = model.podDisruptionBudget().orElseThrow();
    assertThat(pdb.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(0));
    assertThat(pdb.getSpec().getMinAvailable()).isNull();
    assertThat(pdb.getMetadata().getLabels()).containsEntry("team", "storage");
  }

  @Test
  void budgetTemplateWithoutBudgetKeepsTheQuorumDefault() {
    EtcdClusterModel model =
        TestClusters.model("podDisruptionBudgetTemplate: {metadata: {labels: {team: storage}}}");
    PodDisruptionBudget pdb = model.podDisruptionBudget().orElseThrow();
    assertThat(pdb.getSpec().getMinAvailable()).isEqualTo(new IntOrString(2));
    assertThat(pdb.getMetadata().getLabels()).containsEntry("team", "storage");
  }

  @Test
  void everythingIsOwnedByTheClusterAndLabelled() {
    List<HasMetadata> all = defaults.all(ClusterState.bootstrap(defaults), 3);
    assertThat(all)
        .extracting(HasMetadata::getKind)
        .containsExactly("ConfigMap", "Service", "Service", "StatefulSet", "PodDisruptionBudget");
    for (HasMetadata o : all) {
      assertThat(o.getMetadata().getNamespace()).isEqualTo("prod");
      assertThat(o.getMetadata().getLabels()).containsAllEntriesOf(Names.labels("demo"));
      assertThat(o.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              (OwnerReference ref) -> {
                assertThat(ref.getApiVersion()).isEqualTo("etcd.aenix.io/v1alpha1");
                assertThat(ref.getKind()).isEqualTo("EtcdCluster");
                assertThat(ref.getName()).isEqualTo("demo");
                assertThat(ref.getUid()).isEqualTo(TestClusters.UID);
                assertThat(ref.getController()).isTrue();
                assertThat(ref.getBlockOwnerDeletion()).isTrue();
              });
    }
  }

  @Test
  void allLeavesOutTheBudgetOfASingleMember() {
    EtcdClusterModel model = TestClusters.model("replicas: 1");
    assertThat(model.all(ClusterState.bootstrap(model), 1))
        .extracting(HasMetadata::getKind)
        .doesNotContain("PodDisruptionBudget");
  }

  @Test
  void eachCallBuildsFreshObjects() {
    StatefulSet first = defaults.statefulSet(3);
    first.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("changed");
    first.getSpec().getTemplate().getMetadata().getLabels().put("x", "y");
    assertThat(defaults.statefulSet(3)).isNotEqualTo(first);
    assertThat(defaults.statefulSet(3)).isEqualTo(defaults.statefulSet(3));
    assertThat(defaults.headlessService()).isEqualTo(defaults.headlessService());
    assertThat(defaults.podDisruptionBudget()).isEqualTo(defaults.podDisruptionBudget());
  }

  @Test
  void theModelDoesNotSeeLaterChangesOfTheResource() throws InvalidSpecException {
    var cluster = TestClusters.withSpec("options: {snapshot-count: '1'}");
    EtcdClusterModel model = EtcdClusterModel.of(cluster);
    String hash = model.podTemplateHash();
    cluster.getSpec().getOptions().put("snapshot-count", "2");
    cluster.getSpec().setReplicas(7);
    assertThat(model.replicas()).isEqualTo(3);
    assertThat(
            model.statefulSet(3).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--snapshot-count=1");
    assertThat(model.podTemplateHash()).isEqualTo(hash);
  }

  @Test
  void withoutUidTheTokenAndOwnerReferenceLackIt() throws InvalidSpecException {
    var cluster = TestClusters.withSpec("{}");
    cluster.getMetadata().setUid(null);
    EtcdClusterModel model = EtcdClusterModel.of(cluster);
    assertThat(model.clusterToken()).isEqualTo("prod-demo");
    assertThat(model.headlessService().getMetadata().getOwnerReferences().get(0).getUid()).isNull();
  }

  /**
   * The peer listeners of each step of a running cluster's move to peer TLS: the peer certificate
   * flags from step 1 on, both schemes (on two ports) while URLs move, and the URL a member of the
   * step would first advertise matching the URLs its peers have then.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "NONE                | https://[::]:2380                   | https://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2380",
        "HTTP_AND_HTTPS      | http://[::]:2380,https://[::]:2382  | http://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2380",
        "HTTPS_ON_BOTH_PORTS | https://[::]:2380,https://[::]:2382 | https://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2382"
      })
  void aMoveToPeerTlsListensOnBothSchemesWhileUrlsMove(
      TlsMove move, String listen, String advertised) throws InvalidSpecException {
    var cluster =
        TestClusters.withSpec(
            """
            security:
              tls:
                peerTrustedCASecret: peer-ca
                peerSecret: peer-tls
            """);
    EtcdClusterModel model =
        EtcdClusterModel.of(cluster, Names.DEFAULT_OPERATOR_IMAGE, "", move, Optional.empty());
    List<String> args =
        model.statefulSet(3).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertThat(args)
        .contains(
            "--listen-peer-urls=" + listen,
            "--initial-advertise-peer-urls=" + advertised,
            "--peer-cert-file=/etc/etcd/pki/peer/cert/tls.crt",
            "--peer-client-cert-auth=true");
    assertThat(model.podTemplateHash())
        .as("each step is a template of its own, so pods roll onto it")
        .isNotEqualTo(
            EtcdClusterModel.of(
                    cluster,
                    Names.DEFAULT_OPERATOR_IMAGE,
                    "",
                    move == TlsMove.NONE ? TlsMove.HTTP_AND_HTTPS : TlsMove.NONE,
                    Optional.empty())
                .podTemplateHash());
  }

  /**
   * The moves off peer TLS, the spec naming no peer Secret: while a step serves https the members
   * keep presenting the peer Secrets they ran (mounted, and named in the flags), unless one of them
   * is missing; the step serving only http needs no certificate.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "HTTPS_AND_HTTP      | https://[::]:2380,http://[::]:2382 | ''       | true",
        "HTTPS_AND_HTTP      | https://[::]:2380,http://[::]:2382 | peer-ca  | false",
        "HTTP_ON_BOTH_PORTS  | http://[::]:2380,http://[::]:2382  | ''       | false",
        "HTTPS_ON_BOTH_PORTS | https://[::]:2380,https://[::]:2382 | ''      | true"
      })
  void aMoveOffPeerTlsKeepsTheMembersSecretsWhileItServesHttps(
      TlsMove move, String listen, String missing, boolean certificate)
      throws InvalidSpecException {
    var cluster = TestClusters.withSpec("replicas: 3\n");
    var kept =
        new PeerSecrets(
            "old-peer", "old-peer-ca", missing.isEmpty() ? List.of() : List.of(missing));
    EtcdClusterModel model =
        EtcdClusterModel.of(cluster, Names.DEFAULT_OPERATOR_IMAGE, "", move, Optional.of(kept));
    var pod = model.statefulSet(3).getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getArgs()).contains("--listen-peer-urls=" + listen);
    boolean presents =
        pod.getContainers().get(0).getArgs().stream()
            .anyMatch(a -> a.startsWith("--peer-cert-file"));
    assertThat(presents).as("presents a peer certificate").isEqualTo(certificate);
    assertThat(
            pod.getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .map(v -> v.getSecret().getSecretName())
                .toList())
        .isEqualTo(certificate ? List.of("old-peer", "old-peer-ca") : List.of());
    assertThat(model.security().peerTlsAsked()).as("the spec asks for none").isFalse();
    assertThat(Security.peerSecretsOf(pod, name -> !name.equals("old-peer-ca")))
        .as("read back from the template, with what is missing")
        .isEqualTo(
            certificate
                ? Optional.of(new PeerSecrets("old-peer", "old-peer-ca", List.of("old-peer-ca")))
                : Optional.empty());
  }

  @Test
  void membersThatFormedOnEtcdsOwnPeerCertificatesKeepThem() throws InvalidSpecException {
    var cluster = TestClusters.withSpec("replicas: 3\n");
    EtcdClusterModel model =
        EtcdClusterModel.of(
            cluster, Names.DEFAULT_OPERATOR_IMAGE, "", TlsMove.AUTO_TLS, Optional.empty());
    var container = model.statefulSet(3).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getArgs())
        .contains(
            "--peer-auto-tls=true",
            "--listen-peer-urls=https://[::]:2380",
            "--initial-advertise-peer-urls=https://$(POD_NAME).demo-headless.$(POD_NAMESPACE).svc:2380")
        .noneMatch(a -> a.startsWith("--peer-cert-file") || a.startsWith("--peer-client-cert"));
    assertThat(model.security().peerScheme()).isEqualTo("https");
    assertThat(container.getLivenessProbe().getHttpGet().getPort().getIntVal())
        .as("the peer port serves https, which a kubelet's http probe cannot ask")
        .isEqualTo(Names.METRICS_PORT);
    assertThat(model.statefulSet(3).getSpec().getTemplate().getSpec().getVolumes())
        .noneMatch(v -> v.getSecret() != null);
    EtcdClusterModel plain = EtcdClusterModel.of(cluster);
    assertThat(
            plain.statefulSet(3).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--listen-peer-urls=http://[::]:2380")
        .doesNotContain("--peer-auto-tls=true");
    assertThat(model.podTemplateHash()).isNotEqualTo(plain.podTemplateHash());
  }
}
