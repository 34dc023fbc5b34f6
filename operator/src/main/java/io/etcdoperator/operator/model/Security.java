package io.etcdoperator.operator.model;

import io.etcdoperator.api.v1alpha1.SecuritySpec;
import io.etcdoperator.api.v1alpha1.TlsSpec;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What {@code spec.security} asks for, as the members run it.
 *
 * <ul>
 *   <li>{@code peerSecret} with {@code peerTrustedCASecret}: peer URLs are https, members present
 *       the peer certificate to each other and require one signed by the peer CA ({@code
 *       --peer-client-cert-auth}).
 *   <li>{@code serverSecret}: the client port serves https with the server certificate.
 *   <li>{@code clientTrustedCASecret}: the client port requires a client certificate signed by that
 *       CA ({@code --client-cert-auth}); {@code clientSecret} is the operator's.
 *   <li>{@code serverTrustedCASecret}: what the operator trusts for the members' server
 *       certificate; without it, the {@code ca.crt} the server Secret carries (cert-manager writes
 *       the issuer's certificate there).
 * </ul>
 *
 * <p>Each Secret is mounted with only the keys etcd reads ({@code tls.crt} and {@code tls.key}, or
 * {@code ca.crt}): a CA's own Secret, which cert-manager writes with the CA's private key, can be
 * named as a trusted CA without that key reaching the members. Files are readable by the pod's
 * group only (mode 0440; the fsGroup owns them). The metrics listener stays plain http: it serves
 * {@code /health}, {@code /livez} and {@code /metrics}, no data, and the kubelet's probes use it,
 * since a kubelet presents no client certificate.
 *
 * @param peerSecret the peer certificate's Secret
 * @param peerCaSecret the peer CA's Secret
 * @param serverSecret the server certificate's Secret
 * @param serverCaSecret what the operator trusts for the server certificate, if not the server
 *     Secret's own ca.crt
 * @param clientCaSecret the client CA's Secret
 * @param clientSecret the operator's client certificate's Secret
 * @param auth {@code enableAuth}
 * @param peerAutoTls without a peer Secret: the members keep the peer TLS on certificates of etcd's
 *     own ({@code --peer-auto-tls}) that they formed with ({@link TlsMove#AUTO_TLS}; never from the
 *     spec alone)
 * @param keptPeer while a move off peer TLS still serves https ({@link TlsMove#servesHttps}): the
 *     peer Secrets the members ran, which {@code peerSecret} and {@code peerCaSecret} then name
 *     when both exist (never from the spec, which names none by then)
 */
public record Security(
    Optional<String> peerSecret,
    Optional<String> peerCaSecret,
    Optional<String> serverSecret,
    Optional<String> serverCaSecret,
    Optional<String> clientCaSecret,
    Optional<String> clientSecret,
    boolean auth,
    boolean peerAutoTls,
    Optional<PeerSecrets> keptPeer) {
  public static final Security NONE =
      new Security(
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          false,
          false,
          Optional.empty());

  public Security {
    peerAutoTls = peerAutoTls && !(peerSecret.isPresent() && peerCaSecret.isPresent());
  }

  /** As the spec asks, without auto TLS. */
  public Security(
      Optional<String> peerSecret,
      Optional<String> peerCaSecret,
      Optional<String> serverSecret,
      Optional<String> serverCaSecret,
      Optional<String> clientCaSecret,
      Optional<String> clientSecret,
      boolean auth) {
    this(
        peerSecret,
        peerCaSecret,
        serverSecret,
        serverCaSecret,
        clientCaSecret,
        clientSecret,
        auth,
        false,
        Optional.empty());
  }

  public static final String CERT_KEY = "tls.crt";
  public static final String PRIVATE_KEY = "tls.key";
  public static final String CA_KEY = "ca.crt";

  static final String PKI = "/etc/etcd/pki";
  static final String PEER_CERT_DIR = PKI + "/peer/cert";
  static final String PEER_CA_DIR = PKI + "/peer/ca";
  static final String SERVER_CERT_DIR = PKI + "/server/cert";
  static final String CLIENT_CA_DIR = PKI + "/client/ca";

  /** Volumes of the Secrets, mounted read-only under {@value #PKI}. */
  static final String PEER_CERT_VOLUME = "peer-certificate";

  static final String PEER_CA_VOLUME = "peer-trusted-ca-certificate";
  static final String SERVER_CERT_VOLUME = "server-certificate";
  static final String CLIENT_CA_VOLUME = "client-trusted-ca-certificate";

  /** Owner and group may read; the fsGroup is the group. */
  private static final int FILE_MODE = 0440;

  public static Security of(SecuritySpec spec) {
    if (spec == null) {
      return NONE;
    }
    TlsSpec tls = spec.getTls() == null ? new TlsSpec() : spec.getTls();
    return new Security(
        name(tls.getPeerSecret()),
        name(tls.getPeerTrustedCASecret()),
        name(tls.getServerSecret()),
        name(tls.getServerTrustedCASecret()),
        name(tls.getClientTrustedCASecret()),
        name(tls.getClientSecret()),
        Boolean.TRUE.equals(spec.getEnableAuth()));
  }

  /**
   * What the members run in {@code move}: the spec's, or with auto TLS ({@link TlsMove#AUTO_TLS}),
   * or, the spec naming no peer Secret while the members' StatefulSet mounts some ({@code
   * running}), with those kept, presented while the move off peer TLS serves https and both exist.
   */
  public static Security of(SecuritySpec spec, TlsMove move, Optional<PeerSecrets> running) {
    Security s = of(spec);
    if (move == TlsMove.AUTO_TLS) {
      return new Security(
          s.peerSecret,
          s.peerCaSecret,
          s.serverSecret,
          s.serverCaSecret,
          s.clientCaSecret,
          s.clientSecret,
          s.auth,
          true,
          Optional.empty());
    }
    if (!s.peerTls() && running.isPresent()) {
      PeerSecrets kept = running.get();
      boolean presented = move.servesHttps() && kept.usable();
      return new Security(
          Optional.of(kept.certificate()).filter(n -> presented),
          Optional.of(kept.trustedCa()).filter(n -> presented),
          s.serverSecret,
          s.serverCaSecret,
          s.clientCaSecret,
          s.clientSecret,
          s.auth,
          false,
          running);
    }
    return s;
  }

  private static Optional<String> name(String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.trim());
  }

  /** Members talk to each other over TLS. */
  public boolean peerTls() {
    return peerSecret.isPresent() && peerCaSecret.isPresent();
  }

  /**
   * The spec asks for TLS between members (not only the members' own Secrets kept for a move off
   * it).
   */
  public boolean peerTlsAsked() {
    return peerTls() && keptPeer.isEmpty();
  }

  /** The client port serves TLS. */
  public boolean serverTls() {
    return serverSecret.isPresent();
  }

  /** The client port requires a client certificate. */
  public boolean clientCertAuth() {
    return clientCaSecret.isPresent();
  }

  public boolean any() {
    return peerTls() || serverTls() || clientCertAuth() || clientSecret.isPresent();
  }

  /** Members talk to each other over TLS, with the peer Secret's certificate or etcd's own. */
  public boolean peerHttps() {
    return peerTls() || peerAutoTls;
  }

  public String peerScheme() {
    return peerHttps() ? "https" : "http";
  }

  public String clientScheme() {
    return serverTls() ? "https" : "http";
  }

  /**
   * Where the operator's trust for the members' server certificate comes from: {@code
   * serverTrustedCASecret}'s ca.crt, else the server Secret's own ca.crt.
   */
  public Optional<String> operatorTrustSecret() {
    return serverCaSecret.or(() -> serverSecret);
  }

  /** Every Secret named, in the order of the spec. */
  public Set<String> secretNames() {
    Set<String> names = new LinkedHashSet<>();
    peerCaSecret.ifPresent(names::add);
    peerSecret.ifPresent(names::add);
    serverCaSecret.ifPresent(names::add);
    serverSecret.ifPresent(names::add);
    clientCaSecret.ifPresent(names::add);
    clientSecret.ifPresent(names::add);
    return names;
  }

  /** The etcd flags of TLS (the URLs' schemes come with {@link EtcdFlags#args}). */
  List<String> flags() {
    List<String> flags = new ArrayList<>();
    if (peerTls()) {
      flags.add("--peer-cert-file=" + PEER_CERT_DIR + "/" + CERT_KEY);
      flags.add("--peer-key-file=" + PEER_CERT_DIR + "/" + PRIVATE_KEY);
      flags.add("--peer-trusted-ca-file=" + PEER_CA_DIR + "/" + CA_KEY);
      flags.add("--peer-client-cert-auth=true");
    } else if (peerAutoTls) {
      flags.add("--peer-auto-tls=true");
    }
    if (serverTls()) {
      flags.add("--cert-file=" + SERVER_CERT_DIR + "/" + CERT_KEY);
      flags.add("--key-file=" + SERVER_CERT_DIR + "/" + PRIVATE_KEY);
    }
    if (clientCertAuth()) {
      flags.add("--trusted-ca-file=" + CLIENT_CA_DIR + "/" + CA_KEY);
      flags.add("--client-cert-auth=true");
    }
    return flags;
  }

  List<Volume> volumes() {
    List<Volume> volumes = new ArrayList<>();
    if (peerTls()) {
      volumes.add(leafVolume(PEER_CERT_VOLUME, peerSecret.get()));
      volumes.add(caVolume(PEER_CA_VOLUME, peerCaSecret.get()));
    }
    serverSecret.ifPresent(s -> volumes.add(leafVolume(SERVER_CERT_VOLUME, s)));
    clientCaSecret.ifPresent(s -> volumes.add(caVolume(CLIENT_CA_VOLUME, s)));
    return volumes;
  }

  List<VolumeMount> mounts() {
    List<VolumeMount> mounts = new ArrayList<>();
    if (peerTls()) {
      mounts.add(mount(PEER_CERT_VOLUME, PEER_CERT_DIR));
      mounts.add(mount(PEER_CA_VOLUME, PEER_CA_DIR));
    }
    if (serverTls()) {
      mounts.add(mount(SERVER_CERT_VOLUME, SERVER_CERT_DIR));
    }
    if (clientCertAuth()) {
      mounts.add(mount(CLIENT_CA_VOLUME, CLIENT_CA_DIR));
    }
    return mounts;
  }

  /**
   * The peer Secrets {@code pod} mounts for etcd (the volumes this class names), each checked with
   * {@code exists}; empty when it mounts no peer certificate.
   */
  public static Optional<PeerSecrets> peerSecretsOf(PodSpec pod, Predicate<String> exists) {
    if (pod == null || pod.getVolumes() == null) {
      return Optional.empty();
    }
    Optional<String> certificate = secretOf(pod, PEER_CERT_VOLUME);
    Optional<String> ca = secretOf(pod, PEER_CA_VOLUME);
    if (certificate.isEmpty() || ca.isEmpty()) {
      return Optional.empty();
    }
    List<String> missing =
        Stream.of(certificate.get(), ca.get()).distinct().filter(exists.negate()).toList();
    return Optional.of(new PeerSecrets(certificate.get(), ca.get(), missing));
  }

  private static Optional<String> secretOf(PodSpec pod, String volume) {
    return pod.getVolumes().stream()
        .filter(v -> volume.equals(v.getName()) && v.getSecret() != null)
        .map(v -> v.getSecret().getSecretName())
        .filter(n -> n != null && !n.isBlank())
        .findFirst();
  }

  /** Names of the volumes and mount paths this class owns (validation keeps users off them). */
  static Set<String> volumeNames() {
    return Set.of(PEER_CERT_VOLUME, PEER_CA_VOLUME, SERVER_CERT_VOLUME, CLIENT_CA_VOLUME);
  }

  private static Volume leafVolume(String volume, String secret) {
    return new VolumeBuilder()
        .withName(volume)
        .withNewSecret()
        .withSecretName(secret)
        .withDefaultMode(FILE_MODE)
        .addNewItem()
        .withKey(CERT_KEY)
        .withPath(CERT_KEY)
        .endItem()
        .addNewItem()
        .withKey(PRIVATE_KEY)
        .withPath(PRIVATE_KEY)
        .endItem()
        .endSecret()
        .build();
  }

  private static Volume caVolume(String volume, String secret) {
    return new VolumeBuilder()
        .withName(volume)
        .withNewSecret()
        .withSecretName(secret)
        .withDefaultMode(FILE_MODE)
        .addNewItem()
        .withKey(CA_KEY)
        .withPath(CA_KEY)
        .endItem()
        .endSecret()
        .build();
  }

  private static VolumeMount mount(String volume, String path) {
    return new VolumeMountBuilder().withName(volume).withMountPath(path).withReadOnly(true).build();
  }
}
