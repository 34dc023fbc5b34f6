package io.etcdoperator.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every invalid spec is refused with the field's path and an exact reason; valid ones pass. */
class SpecValidationTest {

  static Stream<Arguments> invalidSpecs() {
    return Stream.of(
        row("negative replicas", "replicas: -1", "spec.replicas: must be 0 or more, got -1"),
        row(
            "an etcd 3.6 image: never run by this operator",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  image: quay.io/coreos/etcd:v3.6.5
            """,
            "spec.podTemplate.spec.containers[name=etcd].image: quay.io/coreos/etcd:v3.6.5 is etcd"
                + " 3.6, which this operator has never run; it runs etcd 3.4 and 3.5: stay on a"
                + " 3.5 image (etcd 3.6 renames the --experimental-* flags the operator sets and 3.7"
                + " removes them; moving to 3.6 needs 3.5.26 or later first)"),
        row(
            "an etcd 3.7 image",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  image: registry.k8s.io/etcd:3.7.0-0
            """,
            "spec.podTemplate.spec.containers[name=etcd].image: registry.k8s.io/etcd:3.7.0-0 is"
                + " etcd 3.7, which this operator has never run; it runs etcd 3.4 and 3.5: stay on"
                + " a 3.5 image (etcd 3.6 renames the --experimental-* flags the operator sets and"
                + " 3.7 removes them; moving to 3.6 needs 3.5.26 or later first)"),
        row(
            "an etcd 3.3 image",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  image: quay.io/coreos/etcd:v3.3.27
            """,
            "spec.podTemplate.spec.containers[name=etcd].image: quay.io/coreos/etcd:v3.3.27 is"
                + " etcd 3.3, which this operator has never run; it runs etcd 3.4 and 3.5: use a"
                + " 3.4 or 3.5 image"),
        row(
            "replaceLostMemberAfter not a duration",
            "replaceLostMemberAfter: ten minutes",
            "spec.replaceLostMemberAfter: not a duration: 'ten minutes' (e.g. 10m, 1h30m, 2d);"
                + " leave it unset to never replace a lost member automatically"),
        row(
            "emptyDir and replicas 0: it would delete the data",
            """
            replicas: 0
            storage:
              emptyDir: {}
            """,
            "spec.replicas: 0 with emptyDir storage would delete every member's data; only a"
                + " cluster on a volumeClaimTemplate can hibernate"),
        row(
            "aenix's older security.peer shape",
            """
            security:
              peer:
                ca: {secretName: peer-ca}
                cert: {secretName: peer-cert}
            """,
            "spec.security.peer: is an older shape of aenix's API, not supported: name the peer"
                + " Secrets in spec.security.tls.peerSecret and"
                + " spec.security.tls.peerTrustedCASecret"),
        row(
            "aenix's older security.clientServer shape",
            """
            security:
              clientServer:
                ca: {secretName: server-ca}
                cert: {secretName: server-cert}
            """,
            "spec.security.clientServer: is an older shape of aenix's API, not supported: name the"
                + " Secrets in spec.security.tls.serverSecret (and serverTrustedCASecret), and"
                + " spec.security.tls.clientSecret with clientTrustedCASecret"),
        row(
            "an operator-owned option",
            "options: {data-dir: /elsewhere}",
            "spec.options.data-dir: --data-dir is set by the operator (member identity and data"
                + " location); remove it"),
        row(
            "an owned membership option",
            "options: {initial-cluster-state: existing}",
            "spec.options.initial-cluster-state: --initial-cluster-state is set by the operator"
                + " (cluster membership); remove it"),
        row(
            "an owned URL option",
            "options: {listen-client-urls: 'http://0.0.0.0:1234'}",
            "spec.options.listen-client-urls: --listen-client-urls is set by the operator (member"
                + " URLs and ports); remove it"),
        row(
            "a TLS file option",
            "options: {peer-cert-file: /tls/peer.crt}",
            "spec.options.peer-cert-file: --peer-cert-file is set by the operator (TLS comes with"
                + " spec.security.tls); remove it"),
        row(
            "an option with leading dashes",
            "options: {--snapshot-count: '10000'}",
            "spec.options.--snapshot-count: write the flag name without leading dashes:"
                + " 'snapshot-count'"),
        row(
            "an option that is no flag name",
            "options: {'Snapshot Count': '10000'}",
            "spec.options.Snapshot Count: not an etcd flag name (lowercase letters, digits, '-' and"
                + " '.')"),
        row(
            "an option without value",
            "options: {enable-pprof: null}",
            "spec.options.enable-pprof: a value is required (write \"true\" for a boolean flag)"),
        row(
            "a PVC template without a size",
            """
            storage:
              volumeClaimTemplate:
                spec:
                  storageClassName: fast
            """,
            "spec.storage.volumeClaimTemplate.spec.resources.requests.storage: required: the size"
                + " of each member's volume, e.g. 4Gi"),
        row(
            "a PVC template of size zero",
            """
            storage:
              volumeClaimTemplate:
                spec:
                  resources: {requests: {storage: "0"}}
            """,
            "spec.storage.volumeClaimTemplate.spec.resources.requests.storage: must be more than 0,"
                + " got 0"),
        row(
            "a PVC template whose size is no quantity",
            """
            storage:
              volumeClaimTemplate:
                spec:
                  resources: {requests: {storage: "four gigs"}}
            """,
            "spec.storage.volumeClaimTemplate.spec.resources.requests.storage: not a quantity:"
                + " 'four gigs'"),
        row(
            "a podTemplate volume named like the data volume",
            """
            podTemplate:
              spec:
                volumes:
                - name: data
                  emptyDir: {}
            """,
            "spec.podTemplate.spec.volumes[0].name: 'data' is the operator's data volume; choose"
                + " another name"),
        row(
            "a volumeMount of the data volume in the etcd container",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  volumeMounts:
                  - name: data
                    mountPath: /data
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].name: 'data' is mounted by the"
                + " operator at /var/run/etcd; remove it"),
        row(
            "another volume mounted over the data directory",
            """
            podTemplate:
              spec:
                volumes:
                - name: scratch
                  emptyDir: {}
                containers:
                - name: etcd
                  volumeMounts:
                  - name: scratch
                    mountPath: /var/run/etcd
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].mountPath: /var/run/etcd is at,"
                + " above or inside the data directory /var/run/etcd/default.etcd and would hide or"
                + " replace the member's data; choose a path outside /var/run/etcd"),
        row(
            "a volume mounted above the data directory",
            """
            podTemplate:
              spec:
                volumes:
                - name: scratch
                  emptyDir: {}
                containers:
                - name: etcd
                  volumeMounts:
                  - name: scratch
                    mountPath: /var/
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].mountPath: /var/ is at, above or"
                + " inside the data directory /var/run/etcd/default.etcd and would hide or replace"
                + " the member's data; choose a path outside /var/run/etcd"),
        row(
            "a volume mounted inside the data mount",
            """
            podTemplate:
              spec:
                volumes:
                - name: scratch
                  emptyDir: {}
                containers:
                - name: etcd
                  volumeMounts:
                  - name: scratch
                    mountPath: /var/run/etcd/default.etcd/member/wal
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].mountPath:"
                + " /var/run/etcd/default.etcd/member/wal is at, above or inside the data directory"
                + " /var/run/etcd/default.etcd and would hide or replace the member's data; choose a"
                + " path outside /var/run/etcd"),
        row(
            "a sidecar that writes the member's data",
            """
            podTemplate:
              spec:
                containers:
                - name: backup
                  image: backup:1
                  volumeMounts:
                  - {name: data, mountPath: /data}
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].readOnly: 'data' is the member's"
                + " data: only the etcd container writes it; mount it with readOnly: true"),
        row(
            "the etcd container's args",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  args: [--snapshot-count=1]
            """,
            "spec.podTemplate.spec.containers[0].args: would replace the operator's arguments (the"
                + " member's name, data directory and URLs); set etcd flags in spec.options"
                + " instead"),
        row(
            "a command that carries an owned flag",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  command: [etcd, --force-new-cluster]
            """,
            "spec.podTemplate.spec.containers[0].command: must be the etcd binary alone (for"
                + " example [\"etcd\"] or [\"/usr/local/bin/etcd\"]), got [etcd,"
                + " --force-new-cluster]: the operator passes etcd's flags; set yours in"
                + " spec.options"),
        row(
            "a shell in place of etcd",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  command: [/bin/sh]
            """,
            "spec.podTemplate.spec.containers[0].command: must be the etcd binary alone (for"
                + " example [\"etcd\"] or [\"/usr/local/bin/etcd\"]), got [/bin/sh]: the"
                + " operator passes etcd's flags; set yours in spec.options"),
        row(
            "envFrom on the etcd container",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  envFrom:
                  - configMapRef: {name: etcd-settings}
            """,
            "spec.podTemplate.spec.containers[0].envFrom: not allowed on the etcd container: any"
                + " ETCD_* variable it brings sets an etcd flag the operator cannot check; set flags"
                + " in spec.options and variables in env"),
        row(
            "the config-file option",
            "options: {config-file: /etc/etcd.yaml}",
            "spec.options.config-file: --config-file is set by the operator (etcd ignores every"
                + " other flag and variable when it is set); remove it"),
        row(
            "the config file through the environment",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  env:
                  - {name: ETCD_CONFIG_FILE, value: /etc/etcd.yaml}
            """,
            "spec.podTemplate.spec.containers[0].env[0].name: ETCD_CONFIG_FILE sets --config-file,"
                + " which is set by the operator (etcd ignores every other flag and variable when"
                + " it is set); remove it"),
        row(
            "writes acknowledged before they are on disk",
            "options: {unsafe-no-fsync: 'true'}",
            "spec.options.unsafe-no-fsync: --unsafe-no-fsync=true acknowledges writes before they"
                + " are on disk (data loss); the operator does not run members with it: remove"
                + " it"),
        row(
            "a v2 proxy instead of a member",
            "options: {proxy: 'on'}",
            "spec.options.proxy: --proxy=on runs etcd as a v2 proxy instead of a member; the"
                + " operator does not run members with it: remove it"),
        row(
            "membership changes that may lose quorum",
            "options: {strict-reconfig-check: 'false'}",
            "spec.options.strict-reconfig-check: --strict-reconfig-check=false lets etcd accept a"
                + " membership change that leaves it without quorum; the operator does not run"
                + " members with it: remove it"),
        row(
            "the v2 API",
            "options: {enable-v2: 'true'}",
            "spec.options.enable-v2: --enable-v2=true serves the v2 API, whose data and users live"
                + " outside v3 snapshots, backups and auth; the operator does not run members with"
                + " it: remove it"),
        row(
            "a restart policy other than Always",
            """
            podTemplate:
              spec:
                restartPolicy: OnFailure
            """,
            "spec.podTemplate.spec.restartPolicy: must be Always, got 'OnFailure': a member whose"
                + " process stopped must start again; remove it"),
        row(
            "a pod label value longer than 63 characters",
            """
            podTemplate:
              metadata:
                labels: {team: %s}
            """
                .formatted("t".repeat(64)),
            "spec.podTemplate.metadata.labels.team: a label value must be at most 63 characters,"
                + " got 64"),
        row(
            "a pod label value with a space",
            """
            podTemplate:
              metadata:
                labels: {team: 'storage team'}
            """,
            "spec.podTemplate.metadata.labels.team: a label value must be letters, digits, '-', '_'"
                + " or '.', beginning and ending with a letter or digit, got 'storage team'"),
        row(
            "a label key with an empty name",
            """
            podTemplate:
              metadata:
                labels: {'example.com/': x}
            """,
            "spec.podTemplate.metadata.labels.example.com/: the name of a label key must be 1 to 63"
                + " letters, digits, '-', '_' or '.', beginning and ending with a letter or digit"),
        row(
            "Service externalIPs",
            """
            serviceTemplate:
              spec:
                externalIPs: [203.0.113.7]
            """,
            "spec.serviceTemplate.spec.externalIPs: not allowed: a Service's externalIPs can"
                + " capture traffic for any address in the cluster (CVE-2020-8554); expose etcd"
                + " through a LoadBalancer or an Ingress instead"),
        row(
            "a sidecar port on etcd's client port",
            """
            podTemplate:
              spec:
                containers:
                - name: proxy
                  image: envoy
                  ports:
                  - name: http
                    containerPort: 2379
            """,
            "spec.podTemplate.spec.containers[0].ports[0].containerPort: 2379 is etcd's client"
                + " port; use another port"),
        row(
            "the etcd container's metrics port under another name",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  ports:
                  - name: prometheus
                    containerPort: 2381
            """,
            "spec.podTemplate.spec.containers[0].ports[0].containerPort: 2381 is etcd's metrics"
                + " port; use another port"),
        row(
            "the etcd container's client port moved",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  ports:
                  - name: client
                    containerPort: 12379
            """,
            "spec.podTemplate.spec.containers[0].ports[0].containerPort: port 'client' is 2379,"
                + " where etcd listens; got 12379"),
        row(
            "an env var that sets an owned flag",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  env:
                  - name: ETCD_INITIAL_CLUSTER_STATE
                    value: existing
            """,
            "spec.podTemplate.spec.containers[0].env[0].name: ETCD_INITIAL_CLUSTER_STATE sets"
                + " --initial-cluster-state, which is set by the operator (cluster membership);"
                + " remove it"),
        row(
            "an env var the member name comes from",
            """
            podTemplate:
              spec:
                containers:
                - name: etcd
                  env:
                  - name: POD_NAME
                    value: fixed
            """,
            "spec.podTemplate.spec.containers[0].env[0].name: POD_NAME is set by the operator"
                + " (member identity); remove it"),
        row(
            "a container without a name",
            """
            podTemplate:
              spec:
                containers:
                - image: busybox
            """,
            "spec.podTemplate.spec.containers[0].name: required"),
        row(
            "two containers of one name",
            """
            podTemplate:
              spec:
                initContainers:
                - name: setup
                  image: busybox
                containers:
                - name: setup
                  image: busybox
            """,
            "spec.podTemplate.spec.containers[0].name: duplicate container name 'setup'"),
        row(
            "an init container named like the etcd container",
            """
            podTemplate:
              spec:
                initContainers:
                - name: etcd
                  image: busybox
            """,
            "spec.podTemplate.spec.initContainers[0].name: 'etcd' is the etcd container's name;"
                + " choose another"),
        row(
            "a pod label that would move the pods out of the selector",
            """
            podTemplate:
              metadata:
                labels:
                  app.kubernetes.io/instance: other
            """,
            "spec.podTemplate.metadata.labels.app.kubernetes.io/instance: the operator sets this"
                + " label to 'demo'; remove it"),
        row(
            "an annotation in the operator's prefix",
            """
            podTemplate:
              metadata:
                annotations:
                  etcd.aenix.io/pod-template-hash: "0"
            """,
            "spec.podTemplate.metadata.annotations.etcd.aenix.io/pod-template-hash: annotations"
                + " under etcd.aenix.io/ belong to the operator"),
        row(
            "a Service selector",
            """
            serviceTemplate:
              spec:
                selector: {app: other}
            """,
            "spec.serviceTemplate.spec.selector: set by the operator (the cluster's member pods);"
                + " remove it"),
        row(
            "a headless Service with a cluster IP",
            """
            headlessServiceTemplate:
              spec:
                clusterIP: 10.0.0.10
            """,
            "spec.headlessServiceTemplate.spec.clusterIP: must be None (the headless Service gives"
                + " each member its DNS name), got '10.0.0.10'"),
        row(
            "a headless Service of type NodePort",
            """
            headlessServiceTemplate:
              spec:
                type: NodePort
            """,
            "spec.headlessServiceTemplate.spec.type: must be ClusterIP (the headless Service gives"
                + " each member its DNS name), got 'NodePort'"),
        row(
            "a headless Service that hides members until ready",
            """
            headlessServiceTemplate:
              spec:
                publishNotReadyAddresses: false
            """,
            "spec.headlessServiceTemplate.spec.publishNotReadyAddresses: must be true: members"
                + " resolve each other's names before they are ready"),
        row(
            "a PDB template with both budgets",
            """
            podDisruptionBudgetTemplate:
              spec:
                minAvailable: 2
                maxUnavailable: 1
            """,
            "spec.podDisruptionBudgetTemplate.spec: set minAvailable or maxUnavailable, not both"),
        row(
            "enableAuth without the operator's client certificate",
            """
            security:
              enableAuth: true
            """,
            "spec.security.enableAuth: the operator authenticates with its client certificate: set"
                + " spec.security.tls.serverSecret and spec.security.tls.clientSecret"),
        row(
            "enableAuth on etcd 3.4",
            """
            security:
              enableAuth: true
              tls: {serverSecret: s, clientSecret: c, clientTrustedCASecret: ca}
            podTemplate:
              spec:
                containers:
                - name: etcd
                  image: quay.io/coreos/etcd:v3.4.23
            """,
            "spec.security.enableAuth: needs etcd 3.5 or later, and the image"
                + " quay.io/coreos/etcd:v3.4.23 is 3.4 (3.4 cannot say whether authentication is"
                + " on, and its users need passwords); upgrade first"),
        row(
            "a peer certificate without its CA",
            """
            security:
              tls: {peerSecret: peer}
            """,
            "spec.security.tls: set both peerSecret and peerTrustedCASecret, or neither (members"
                + " verify each other's certificate)"),
        row(
            "a client CA without the operator's client certificate",
            """
            security:
              tls: {serverSecret: server, clientTrustedCASecret: client-ca}
            """,
            "spec.security.tls: set both clientSecret and clientTrustedCASecret, or neither"
                + " (members verify the operator's client certificate)"),
        row(
            "client certificates on a plain client port",
            """
            security:
              tls: {clientSecret: client, clientTrustedCASecret: client-ca}
            """,
            "spec.security.tls.clientTrustedCASecret: client certificates need TLS on the client"
                + " port: set serverSecret too"),
        row(
            "a server CA without a server certificate",
            """
            security:
              tls: {serverTrustedCASecret: server-ca}
            """,
            "spec.security.tls.serverTrustedCASecret: trusts a server certificate, but no"
                + " serverSecret gives the members one: set serverSecret too, or remove it"),
        row(
            "a Secret name that is no name",
            """
            security:
              tls: {serverSecret: Server_TLS}
            """,
            "spec.security.tls.serverSecret: 'Server_TLS' is no Secret name (a DNS subdomain:"
                + " lowercase letters, digits, '-' and '.')"),
        row(
            "a podTemplate volume named like a TLS volume",
            """
            podTemplate:
              spec:
                volumes:
                - name: peer-certificate
                  emptyDir: {}
            """,
            "spec.podTemplate.spec.volumes[0].name: 'peer-certificate' is a volume of"
                + " spec.security.tls; choose another name"),
        row(
            "a mount where the TLS Secrets go",
            """
            podTemplate:
              spec:
                volumes:
                - name: certs
                  emptyDir: {}
                containers:
                - name: etcd
                  volumeMounts:
                  - {name: certs, mountPath: /etc/etcd/pki/peer}
            """,
            "spec.podTemplate.spec.containers[0].volumeMounts[0].mountPath: /etc/etcd/pki/peer is"
                + " where spec.security.tls mounts its Secrets (/etc/etcd/pki); choose another"
                + " path"));
  }

  static Stream<Arguments> invalidNames() {
    return Stream.of(
        Arguments.of(
            "Demo",
            "metadata.name: must be a DNS-1035 label (lowercase letters, digits and '-', starting"
                + " with a letter and ending with a letter or digit): it names the cluster's"
                + " Services"),
        Arguments.of(
            "1demo",
            "metadata.name: must be a DNS-1035 label (lowercase letters, digits and '-', starting"
                + " with a letter and ending with a letter or digit): it names the cluster's"
                + " Services"),
        Arguments.of(
            "a".repeat(53),
            "metadata.name: must be at most 52 characters, got 53: pods carry the label"
                + " controller-revision-hash=<name>-<hash>, at most 63"));
  }

  static Stream<String> validSpecs() {
    return Stream.of(
        "{}",
        "replicas: 0",
        "options: {quota-backend-bytes: '8589934592', auto-compaction-retention: '1h'}",
        """
        storage:
          emptyDir: {medium: Memory}
          persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}
        """,
        """
        podTemplate:
          metadata:
            labels: {app.kubernetes.io/name: etcd, team: storage}
          spec:
            volumes:
            - name: backup
              emptyDir: {}
            containers:
            - name: etcd
              ports:
              - {name: client, containerPort: 2379}
              volumeMounts:
              - {name: backup, mountPath: /backup}
            - name: backup
              image: backup:1
              volumeMounts:
              - {name: data, mountPath: /var/run/etcd, readOnly: true}
        """,
        """
        headlessServiceTemplate:
          spec: {clusterIP: None, type: ClusterIP, publishNotReadyAddresses: true}
        podDisruptionBudgetTemplate:
          spec: {maxUnavailable: 1}
        """);
  }

  private static Arguments row(String description, String spec, String problem) {
    return Arguments.of(description, spec, problem);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSpecs")
  void invalidSpecIsRefusedWithTheFieldAndTheReason(
      String description, String spec, String problem) {
    assertThat(problems(TestClusters.withSpec(spec))).containsExactly(problem);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidNames")
  void invalidNameIsRefused(String name, String problem) {
    assertThat(problems(TestClusters.parse(TestClusters.manifest(name, "{}"))))
        .containsExactly(problem);
  }

  @ParameterizedTest
  @MethodSource("validSpecs")
  void validSpecPasses(String spec) throws InvalidSpecException {
    assertThat(EtcdClusterModel.of(TestClusters.withSpec(spec)).name()).isEqualTo("demo");
  }

  @Test
  void longestNameFits() throws InvalidSpecException {
    String name = "a".repeat(Names.MAX_CLUSTER_NAME_LENGTH);
    assertThat(EtcdClusterModel.of(TestClusters.parse(TestClusters.manifest(name, "{}"))).name())
        .isEqualTo(name);
  }

  @Test
  void missingNameAndNamespaceAreRefused() {
    EtcdCluster cluster = TestClusters.withSpec("{}");
    cluster.getMetadata().setName(null);
    cluster.getMetadata().setNamespace(null);
    assertThat(problems(cluster))
        .containsExactly("metadata.name: required", "metadata.namespace: required");
  }

  @Test
  void everyProblemIsReportedAtOnceAndJoinedInTheMessage() {
    EtcdCluster cluster =
        TestClusters.withSpec(
            """
            replicas: -2
            options: {name: x, wal-dir: /wal}
            security: {enableAuth: true}
            """);
    InvalidSpecException e =
        catchThrowableOfType(InvalidSpecException.class, () -> EtcdClusterModel.of(cluster));
    assertThat(e.problems())
        .extracting(SpecProblem::field)
        .containsExactly(
            "spec.replicas",
            "spec.options.name",
            "spec.options.wal-dir",
            "spec.security.enableAuth");
    assertThat(e.getMessage())
        .startsWith("spec.replicas: must be 0 or more, got -2; spec.options.name: --name is set")
        .contains("; spec.security.enableAuth: ");
  }

  @Test
  void anExceptionWithoutProblemsCannotBeMade() {
    assertThatThrownBy(() -> new InvalidSpecException(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static List<String> problems(EtcdCluster cluster) {
    return SpecValidator.validate(cluster).stream().map(SpecProblem::toString).toList();
  }
}
