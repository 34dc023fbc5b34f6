package io.etcdoperator.operator.model;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every name, label and URL the operator derives from a cluster, in one place.
 *
 * <p>Member identity is the StatefulSet ordinal: pod {@code <cluster>-<i>}, claim {@code
 * data-<cluster>-<i>}, etcd member name {@code <cluster>-<i>}, peer URL {@code
 * http://<cluster>-<i>.<cluster>-headless.<namespace>.svc:2380}. Peer URLs are DNS names, never pod
 * IPs, so a member keeps its identity when its pod moves.
 */
public final class Names {
  public static final int CLIENT_PORT = 2379;
  public static final int PEER_PORT = 2380;
  public static final int METRICS_PORT = 2381;

  /**
   * The second peer port, served only while a running cluster moves its peers to TLS ({@link
   * TlsMove}): one port serves one scheme.
   */
  public static final int MOVE_PEER_PORT = 2382;

  public static final String ETCD_CONTAINER = "etcd";
  public static final String DATA_VOLUME = "data";
  public static final String DATA_MOUNT_PATH = "/var/run/etcd";
  public static final String DATA_DIR = DATA_MOUNT_PATH + "/default.etcd";
  public static final String CLIENT_PORT_NAME = "client";
  public static final String PEER_PORT_NAME = "peer";
  public static final String METRICS_PORT_NAME = "metrics";

  /** Environment of the etcd container: the pod's own name and namespace (downward API). */
  public static final String ENV_POD_NAME = "POD_NAME";

  public static final String ENV_POD_NAMESPACE = "POD_NAMESPACE";

  /** Keys of the cluster-state ConfigMap; etcd reads them from its environment. */
  public static final String ENV_INITIAL_CLUSTER = "ETCD_INITIAL_CLUSTER";

  public static final String ENV_INITIAL_CLUSTER_STATE = "ETCD_INITIAL_CLUSTER_STATE";
  public static final String ENV_INITIAL_CLUSTER_TOKEN = "ETCD_INITIAL_CLUSTER_TOKEN";

  /**
   * The longest cluster name: the StatefulSet controller labels each pod {@code
   * controller-revision-hash=<cluster>-<hash of up to 10 characters>}, a label value of at most 63.
   */
  public static final int MAX_CLUSTER_NAME_LENGTH = 52;

  public static final String LABEL_NAME = "app.kubernetes.io/name";
  public static final String LABEL_INSTANCE = "app.kubernetes.io/instance";
  public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String LABEL_COMPONENT = "app.kubernetes.io/component";
  public static final String APP_NAME = "etcd";
  public static final String MANAGER = "etcd-operator";

  /** Prefix of the annotations the operator owns. */
  public static final String ANNOTATION_PREFIX = "etcd.aenix.io/";

  /** On the pod template, and so on every member pod: the hash of the template it was made from. */
  public static final String POD_TEMPLATE_HASH_ANNOTATION = ANNOTATION_PREFIX + "pod-template-hash";

  /**
   * On the pod template: the fingerprint of the CAs members load at start (peer and client CA).
   * etcd builds its CA pools once, so a new CA takes a restart; the annotation makes it a roll.
   */
  public static final String TRUSTED_CA_ANNOTATION = ANNOTATION_PREFIX + "trusted-ca";

  /** On a data claim: the ID (hex) of the etcd member whose data it holds. */
  public static final String MEMBER_ID_ANNOTATION = ANNOTATION_PREFIX + "member-id";

  /**
   * On the EtcdCluster, set by a human: the opt-in to rebuild the cluster from its most advanced
   * survivor once a majority lost its data. The value must be the resource's UID (optionally
   * followed by {@code /<anything>}, to opt in again for a later disaster).
   */
  public static final String REBUILD_OPT_IN_ANNOTATION =
      ANNOTATION_PREFIX + "rebuild-from-survivor";

  /** On the cluster-state ConfigMap: a rebuild in progress, {@code <opt-in value>} ... */
  public static final String REBUILDING_ANNOTATION = ANNOTATION_PREFIX + "rebuilding";

  /** ... from this survivor (member name). */
  public static final String REBUILDING_FROM_ANNOTATION = ANNOTATION_PREFIX + "rebuilding-from";

  /** On the cluster-state ConfigMap: the opt-in value of the last rebuild done ... */
  public static final String REBUILT_ANNOTATION = ANNOTATION_PREFIX + "rebuilt";

  /** ... as {@code <survivor>@<revision>@<time>}. */
  public static final String REBUILT_FROM_ANNOTATION = ANNOTATION_PREFIX + "rebuilt-from";

  /**
   * On the cluster-state ConfigMap and on every data claim: the cluster ID (hex) the cluster formed
   * with, recorded once a quorum was seen. Members answering with another ID are another cluster,
   * never this one. The claims' copy outlives the ConfigMap.
   */
  public static final String CLUSTER_ID_ANNOTATION = ANNOTATION_PREFIX + "cluster-id";

  /** On the rebuild pod: the ordinal of the survivor whose claim it runs on. */
  public static final String SURVIVOR_ANNOTATION = ANNOTATION_PREFIX + "survivor";

  /** On an EtcdCluster: {@code "true"} stops every change the operator would make to it. */
  public static final String PAUSED_ANNOTATION = ANNOTATION_PREFIX + "paused";

  /**
   * On the cluster-state ConfigMap: each member's last defragmentation, as JSON (member name to
   * time, duration, sizes, error).
   */
  public static final String DEFRAGMENTED_ANNOTATION = ANNOTATION_PREFIX + "defragmented";

  /**
   * On the cluster-state ConfigMap: the revision the operator last compacted the history to while
   * recovering from NOSPACE, and when ({@code <revision>@<time>}).
   */
  public static final String COMPACTED_ANNOTATION = ANNOTATION_PREFIX + "compacted";

  /** On every object the operator writes: the hash of the desired object last written. */
  public static final String DESIRED_HASH_ANNOTATION = ANNOTATION_PREFIX + "desired-hash";

  /** The operator's image of this build, as deploy/ names it (OPERATOR_IMAGE overrides it). */
  public static final String DEFAULT_OPERATOR_IMAGE = "localhost/etcd-operator:0.1.0-SNAPSHOT";

  /** The init container of a member pod that restores its data from a snapshot. */
  public static final String RESTORE_CONTAINER = "restore";

  /**
   * On the cluster-state ConfigMap: what the cluster was restored from, {@code
   * <uri>@<revision>@<sha256>@<time>}, recorded once it formed.
   */
  public static final String RESTORED_FROM_ANNOTATION = ANNOTATION_PREFIX + "restored-from";

  /**
   * On the cluster-state ConfigMap: the Secrets of server TLS the spec named ({@link
   * ServerTlsRecord}), kept while a member still serves clients over https after the spec turned
   * server TLS off.
   */
  public static final String SERVER_TLS_ANNOTATION = ANNOTATION_PREFIX + "server-tls-secrets";

  /** On a backup's agent pods: the EtcdBackup they work for. */
  public static final String BACKUP_LABEL = ANNOTATION_PREFIX + "etcdbackup-name";

  /**
   * On a backup's agent pod: which attempt of the backup it is (1, 2, ...; absent on pods of
   * operators before retries: 1), so that a pod of an attempt that failed is never taken for the
   * next one.
   */
  public static final String BACKUP_ATTEMPT_ANNOTATION = ANNOTATION_PREFIX + "backup-attempt";

  /**
   * On every agent pod that mounts a backup claim: the claim, as a label value ({@link
   * #claimLabelValue}). Their required pod affinity to each other on this label is what puts them
   * on one node, where a ReadWriteOnce volume can be attached to all of them.
   */
  public static final String BACKUP_CLAIM_LABEL = ANNOTATION_PREFIX + "backup-claim";

  /**
   * A claim's name as a label value: itself when it fits (63 characters), else its first 46 and a
   * hash of the whole (claim names may be 253 long; two long names differ in the hash).
   */
  public static String claimLabelValue(String claim) {
    if (claim.length() <= 63) {
      return claim;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(claim.getBytes(StandardCharsets.UTF_8));
      String head = claim.substring(0, 46).replaceAll("[^A-Za-z0-9]+$", "");
      return head + "-" + HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** On the EtcdBackups a schedule creates: the schedule. */
  public static final String SCHEDULE_LABEL = ANNOTATION_PREFIX + "etcdbackupschedule-name";

  /** On the EtcdBackups a schedule creates: the firing time it was created for (RFC 3339). */
  public static final String SCHEDULED_AT_ANNOTATION = ANNOTATION_PREFIX + "scheduled-at";

  /**
   * On an EtcdBackup, {@code "true"}: delete its snapshot and manifest when the object is deleted.
   * Set on what a schedule creates (retention deletes data with the object); add it to a backup of
   * your own for the same.
   */
  public static final String DELETE_DATA_ANNOTATION = ANNOTATION_PREFIX + "delete-data";

  /**
   * On an EtcdBackup the operator takes before a change it cannot take back: {@code upgrade} or
   * {@code hibernation}.
   */
  public static final String BEFORE_CHANGE_LABEL = ANNOTATION_PREFIX + "before-change";

  private static final Pattern POD_NAME = Pattern.compile("(.+)-(\\d+)");

  private Names() {}

  public static String statefulSet(String cluster) {
    return cluster;
  }

  public static String clientService(String cluster) {
    return cluster;
  }

  public static String headlessService(String cluster) {
    return cluster + "-headless";
  }

  public static String clusterStateConfigMap(String cluster) {
    return cluster + "-cluster-state";
  }

  /** The pod that rebuilds a cluster from a survivor's data with {@code --force-new-cluster}. */
  public static String rebuildPod(String cluster) {
    return cluster + "-rebuild";
  }

  /** The pod that takes the snapshot of an EtcdBackup. */
  public static String backupPod(String backup) {
    return shorten(backup, "-backup");
  }

  /** The pod of a schedule's continuous backup. */
  public static String archiverPod(String schedule) {
    return shorten(schedule, "-archiver");
  }

  /** The pod that deletes an EtcdBackup's data. */
  public static String backupDeletePod(String backup) {
    return shorten(backup, "-delete");
  }

  /** {@code name + suffix}, within the 63 characters of a label value and a pod's hostname. */
  public static String shorten(String name, String suffix) {
    String full = name + suffix;
    if (full.length() <= 63) {
      return full;
    }
    String hash = Integer.toHexString(name.hashCode() & 0x7fffffff);
    return name.substring(0, 63 - suffix.length() - hash.length() - 1) + "-" + hash + suffix;
  }

  public static String podDisruptionBudget(String cluster) {
    return cluster;
  }

  /** The pod of ordinal {@code i}; also the etcd member name. */
  public static String pod(String cluster, int ordinal) {
    return cluster + "-" + ordinal;
  }

  public static String member(String cluster, int ordinal) {
    return pod(cluster, ordinal);
  }

  /** The claim the StatefulSet controller creates for ordinal {@code i}. */
  public static String dataClaim(String cluster, int ordinal) {
    return DATA_VOLUME + "-" + pod(cluster, ordinal);
  }

  /** The ordinal of a data claim of this cluster, or -1 when it is not one. */
  public static int ordinalOfClaim(String cluster, String claimName) {
    String prefix = DATA_VOLUME + "-";
    return claimName != null && claimName.startsWith(prefix)
        ? ordinalOf(cluster, claimName.substring(prefix.length()))
        : -1;
  }

  /** The ordinal of a member or pod name of this cluster, or -1 when it is not one of ours. */
  public static int ordinalOf(String cluster, String podOrMemberName) {
    if (podOrMemberName == null) {
      return -1;
    }
    Matcher m = POD_NAME.matcher(podOrMemberName);
    if (!m.matches() || !m.group(1).equals(cluster) || m.group(2).length() > 6) {
      return -1;
    }
    return Integer.parseInt(m.group(2));
  }

  /**
   * The ordinal of a member of this cluster from one of its peer URLs, or -1 when the URL is not of
   * the form {@link #peerUrl} gives (a member the operator did not create).
   */
  public static int ordinalOfPeerUrl(String namespace, String cluster, String peerUrl) {
    if (peerUrl == null) {
      return -1;
    }
    String host;
    try {
      host = URI.create(peerUrl).getHost();
    } catch (IllegalArgumentException e) {
      return -1;
    }
    if (host == null) {
      return -1;
    }
    String suffix = "." + headlessService(cluster) + "." + namespace + ".svc";
    String bare = host.endsWith(".cluster.local") ? host.substring(0, host.length() - 14) : host;
    if (!bare.endsWith(suffix)) {
      return -1;
    }
    return ordinalOf(cluster, bare.substring(0, bare.length() - suffix.length()));
  }

  /** Stable DNS name of a member: {@code <pod>.<cluster>-headless.<namespace>.svc}. */
  public static String memberHost(String namespace, String cluster, int ordinal) {
    return pod(cluster, ordinal) + "." + headlessService(cluster) + "." + namespace + ".svc";
  }

  public static String peerUrl(String namespace, String cluster, int ordinal) {
    return peerUrl(namespace, cluster, ordinal, "http");
  }

  /** The peer URL on {@code scheme}: https with peer TLS. */
  public static String peerUrl(String namespace, String cluster, int ordinal, String scheme) {
    return scheme + "://" + memberHost(namespace, cluster, ordinal) + ":" + PEER_PORT;
  }

  public static String clientUrl(String namespace, String cluster, int ordinal) {
    return clientUrl(namespace, cluster, ordinal, "http");
  }

  /** The client URL on {@code scheme}: https when the member serves TLS. */
  public static String clientUrl(String namespace, String cluster, int ordinal, String scheme) {
    return scheme + "://" + memberHost(namespace, cluster, ordinal) + ":" + CLIENT_PORT;
  }

  /** Where a member serves its metrics (also while it has no quorum). */
  public static String metricsUrl(String namespace, String cluster, int ordinal) {
    return "http://" + memberHost(namespace, cluster, ordinal) + ":" + METRICS_PORT;
  }

  /** The client Service's in-cluster URL. */
  public static String serviceUrl(String namespace, String cluster) {
    return "http://" + clientService(cluster) + "." + namespace + ".svc:" + CLIENT_PORT;
  }

  /**
   * The initial-cluster token. It carries the resource's UID, so that members bootstrapped by a
   * different incarnation of a same-named cluster get a different cluster ID and are seen as a
   * split brain instead of silently merging with retained data. Without a UID (a manifest rendered
   * before it was applied) the token is {@code <namespace>-<cluster>}.
   */
  public static String clusterToken(String namespace, String cluster, String uid) {
    return namespace + "-" + cluster + (uid == null || uid.isEmpty() ? "" : "-" + uid);
  }

  /**
   * Labels that select this cluster's member pods. Never change: a StatefulSet selector is
   * immutable.
   */
  public static Map<String, String> selectorLabels(String cluster) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(LABEL_NAME, APP_NAME);
    labels.put(LABEL_INSTANCE, cluster);
    return labels;
  }

  /** The recommended labels on every object of this cluster. */
  public static Map<String, String> labels(String cluster) {
    Map<String, String> labels = selectorLabels(cluster);
    labels.put(LABEL_MANAGED_BY, MANAGER);
    labels.put(LABEL_COMPONENT, "database");
    return labels;
  }

  /**
   * {@code key=value,...} form of the selector labels (status.selector for the scale subresource).
   */
  public static String selectorString(String cluster) {
    StringBuilder sb = new StringBuilder();
    selectorLabels(cluster)
        .forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
    return sb.toString();
  }
}
