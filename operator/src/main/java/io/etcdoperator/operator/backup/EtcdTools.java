package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * etcd's own offline tools, as the restore agent runs them: the one place that knows which binary
 * does what. {@code etcdutl} (etcd 3.5 and later) when the tools directory has it, else {@code
 * etcdctl} (etcd 3.4, whose {@code snapshot restore} and {@code snapshot status} are the same
 * commands, under {@code ETCDCTL_API=3}). The directory is {@code $ETCD_TOOLS_DIR}, default {@code
 * /usr/local/bin} (the operator's image carries etcdutl there; the sandbox points it at the tools
 * of the etcd the pod runs).
 */
public final class EtcdTools {
  public static final String DIR_ENV = "ETCD_TOOLS_DIR";
  private static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*([0-9]+)");

  private final Path binary;
  private final boolean etcdutl;

  private EtcdTools(Path binary, boolean etcdutl) {
    this.binary = binary;
    this.etcdutl = etcdutl;
  }

  /** The tools in {@code dir}; throws IOException naming the directory when there are none. */
  public static EtcdTools in(Path dir) throws IOException {
    Path utl = dir.resolve("etcdutl");
    if (Files.isExecutable(utl)) {
      return new EtcdTools(utl, true);
    }
    Path ctl = dir.resolve("etcdctl");
    if (Files.isExecutable(ctl)) {
      return new EtcdTools(ctl, false);
    }
    throw new IOException("neither etcdutl nor etcdctl in " + dir + " ($" + DIR_ENV + ")");
  }

  public static EtcdTools fromEnvironment() throws IOException {
    String dir = System.getenv(DIR_ENV);
    return in(Path.of(dir == null || dir.isBlank() ? "/usr/local/bin" : dir));
  }

  public String binary() {
    return binary.toString();
  }

  /** etcd itself, beside its tools (a point-in-time restore runs it on the full backup). */
  public String etcd() throws IOException {
    Path etcd = binary.resolveSibling("etcd");
    if (!Files.isExecutable(etcd)) {
      throw new IOException("no etcd beside " + binary + " for a point-in-time restore");
    }
    return etcd.toString();
  }

  /**
   * Restores {@code snapshot} into {@code dataDir} (which must not exist) as member {@code name} of
   * a new cluster: {@code initialCluster} ({@code name=peerURL,...}) and {@code token} give every
   * member the same new member IDs and a new cluster ID. etcd checks the snapshot's sha256.
   */
  public void restore(
      Path snapshot, Path dataDir, String name, String initialCluster, String token, String peerUrl)
      throws IOException {
    run(
        List.of(
            "snapshot",
            "restore",
            snapshot.toString(),
            "--data-dir=" + dataDir,
            "--name=" + name,
            "--initial-cluster=" + initialCluster,
            "--initial-cluster-token=" + token,
            "--initial-advertise-peer-urls=" + peerUrl));
  }

  /** The key-value revision a snapshot file holds, as {@code snapshot status} reads it. */
  public long revision(Path snapshot) throws IOException {
    String out = run(List.of("snapshot", "status", snapshot.toString(), "--write-out=json"));
    Matcher m = REVISION.matcher(out);
    if (!m.find()) {
      throw new IOException(binary + " snapshot status printed no revision: " + out.trim());
    }
    return Long.parseLong(m.group(1));
  }

  private String run(List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (!etcdutl) {
      pb.environment().putAll(Map.of("ETCDCTL_API", "3"));
    }
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    try {
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within 10 minutes");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      String last = text.strip().lines().reduce((a, b) -> b).orElse("");
      throw new IOException(
          binary.getFileName() + " " + args.get(0) + " " + args.get(1) + " failed: " + last);
    }
    return text;
  }
}
