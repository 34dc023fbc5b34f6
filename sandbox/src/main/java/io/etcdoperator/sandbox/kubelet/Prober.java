package io.etcdoperator.sandbox.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs one probe once, as the kubelet does, against the pod's address: httpGet (success on status
 * 200-399), tcpSocket (success when a connection opens) or exec (success on exit 0, run inside the
 * container's mount and UTS namespaces with {@code nsenter}).
 *
 * <p>The sandbox never sends a packet beyond loopback: a probe {@code host} that is neither a
 * loopback address nor a name the sandbox resolves fails at once as unreachable, without a lookup
 * or a connection.
 */
public final class Prober {
  /** The outcome of one probe. */
  public record Result(boolean success, String message) {}

  private final Function<String, String> resolve;

  /**
   * @param resolve a sandbox name or loopback literal to an address; null when it is neither
   */
  public Prober(Function<String, String> resolve) {
    this.resolve = resolve;
  }

  public Result run(Probe probe, Container container, String podIp, long pid) {
    int timeoutMs = 1000 * positive(probe.getTimeoutSeconds(), 1);
    try {
      if (probe.getHttpGet() != null) {
        var h = probe.getHttpGet();
        String host = target(h.getHost(), podIp);
        if (host == null) {
          return new Result(false, "host " + h.getHost() + " is unreachable from the sandbox");
        }
        if ("HTTPS".equalsIgnoreCase(h.getScheme())) {
          return new Result(false, "HTTPS probes are not supported by the sandbox");
        }
        int port = port(h.getPort(), container);
        String path = h.getPath() == null || h.getPath().isEmpty() ? "/" : h.getPath();
        URI uri =
            URI.create("http://" + host + ":" + port + (path.startsWith("/") ? path : "/" + path));
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
        c.setConnectTimeout(timeoutMs);
        c.setReadTimeout(timeoutMs);
        c.setInstanceFollowRedirects(false);
        if (h.getHttpHeaders() != null) {
          for (HTTPHeader header : h.getHttpHeaders()) {
            c.setRequestProperty(header.getName(), header.getValue());
          }
        }
        try {
          int code = c.getResponseCode();
          try (InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream()) {
            if (in != null) {
              in.readNBytes(10_240);
            }
          }
          return new Result(
              code >= 200 && code < 400, "HTTP probe failed with statuscode: " + code);
        } finally {
          c.disconnect();
        }
      }
      if (probe.getTcpSocket() != null) {
        var t = probe.getTcpSocket();
        String host = target(t.getHost(), podIp);
        if (host == null) {
          return new Result(false, "host " + t.getHost() + " is unreachable from the sandbox");
        }
        try (Socket s = new Socket(Proxy.NO_PROXY)) {
          s.connect(new InetSocketAddress(host, port(t.getPort(), container)), timeoutMs);
          return new Result(true, "");
        }
      }
      if (probe.getExec() != null) {
        return exec(probe.getExec().getCommand(), pid, timeoutMs);
      }
      return new Result(false, "unsupported probe handler (only httpGet, tcpSocket and exec)");
    } catch (IOException e) {
      return new Result(false, e.getClass().getSimpleName() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      return new Result(false, String.valueOf(e.getMessage()));
    }
  }

  private Result exec(List<String> command, long pid, int timeoutMs) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of("nsenter", "--target", String.valueOf(pid), "--mount", "--uts", "--"));
    cmd.addAll(command);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return new Result(false, "command timed out");
      }
      String out = new String(p.getInputStream().readNBytes(10_240));
      return new Result(p.exitValue() == 0, "exit code " + p.exitValue() + ": " + out.strip());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted");
    }
  }

  private String target(String host, String podIp) {
    if (host == null || host.isEmpty()) {
      return podIp;
    }
    return resolve.apply(host);
  }

  static int port(IntOrString port, Container c) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    String name = port.getStrVal();
    if (name.chars().allMatch(Character::isDigit)) {
      return Integer.parseInt(name);
    }
    if (c.getPorts() != null) {
      for (ContainerPort p : c.getPorts()) {
        if (name.equals(p.getName())) {
          return p.getContainerPort();
        }
      }
    }
    throw new IllegalArgumentException("no container port named " + name);
  }

  static int positive(Integer v, int dflt) {
    return v == null || v <= 0 ? dflt : v;
  }
}
