package io.etcdoperator.sandbox.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's cluster DNS server, as CoreDNS is a cluster's: UDP on port 53 of a loopback
 * address, authoritative for the names it is given and for nothing else. An A query for a known
 * name gets its addresses with TTL 0 (answers are never cached, so a pod's new address is seen at
 * once); a known name asked for another type gets an empty answer; any other name gets NXDOMAIN. It
 * never forwards a query, so no lookup leaves the machine. One question per message; no TCP
 * (answers of a few addresses fit in UDP).
 */
public final class DnsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DnsServer.class);
  private static final int A = 1;
  private static final int IN = 1;

  private final DatagramSocket socket;
  private final Function<String, List<String>> lookup;
  private final Thread thread;

  /**
   * @param address loopback address to listen on (port 53)
   * @param lookup a lower-case name without trailing dot to its IPv4 addresses; empty when unknown
   */
  public DnsServer(String address, Function<String, List<String>> lookup) throws IOException {
    this(address, 53, lookup);
  }

  DnsServer(String address, int port, Function<String, List<String>> lookup) throws IOException {
    this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(address), port));
    this.lookup = lookup;
    this.thread = new Thread(this::serve, "sandbox-dns-" + address);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  public String address() {
    return socket.getLocalAddress().getHostAddress();
  }

  int port() {
    return socket.getLocalPort();
  }

  private void serve() {
    byte[] buf = new byte[1500];
    while (!socket.isClosed()) {
      DatagramPacket in = new DatagramPacket(buf, buf.length);
      try {
        socket.receive(in);
        byte[] answer = answer(buf, in.getLength(), lookup);
        if (answer != null) {
          socket.send(new DatagramPacket(answer, answer.length, in.getSocketAddress()));
        }
      } catch (SocketException e) {
        return;
      } catch (IOException | RuntimeException e) {
        LOG.debug("bad DNS query: {}", e.toString());
      }
    }
  }

  /** The response to one query message, or null when it cannot be parsed. */
  static byte[] answer(byte[] q, int length, Function<String, List<String>> lookup) {
    if (length < 12 || (q[2] & 0x80) != 0) {
      return null;
    }
    int qdcount = ((q[4] & 0xff) << 8) | (q[5] & 0xff);
    if (qdcount != 1) {
      return header(q, 1, 0, 0, 0);
    }
    int pos = 12;
    StringBuilder name = new StringBuilder();
    while (pos < length && q[pos] != 0) {
      int len = q[pos] & 0xff;
      if ((len & 0xc0) != 0 || pos + 1 + len > length) {
        return header(q, 1, 0, 0, 0);
      }
      if (name.length() > 0) {
        name.append('.');
      }
      name.append(new String(q, pos + 1, len, StandardCharsets.US_ASCII));
      pos += 1 + len;
    }
    if (pos + 5 > length) {
      return null;
    }
    int questionEnd = pos + 5;
    int qtype = ((q[pos + 1] & 0xff) << 8) | (q[pos + 2] & 0xff);
    int qclass = ((q[pos + 3] & 0xff) << 8) | (q[pos + 4] & 0xff);
    List<String> addresses = lookup.apply(name.toString().toLowerCase(Locale.ROOT));
    boolean known = addresses != null && !addresses.isEmpty();
    List<String> records = known && qtype == A && qclass == IN ? addresses : List.of();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] h = header(q, known ? 0 : 3, 1, records.size(), 0);
    out.write(h, 0, 12);
    out.write(q, 12, questionEnd - 12);
    for (String ip : records) {
      out.write(0xc0);
      out.write(12);
      out.write(0);
      out.write(A);
      out.write(0);
      out.write(IN);
      out.write(new byte[] {0, 0, 0, 0}, 0, 4);
      out.write(0);
      out.write(4);
      for (String octet : ip.split("\\.")) {
        out.write(Integer.parseInt(octet));
      }
    }
    return out.toByteArray();
  }

  private static byte[] header(byte[] q, int rcode, int qd, int an, int ns) {
    byte[] h = new byte[12];
    h[0] = q[0];
    h[1] = q[1];
    h[2] = (byte) (0x80 | 0x04 | (q[2] & 0x01)); // response, authoritative, copy RD
    h[3] = (byte) (rcode & 0x0f);
    h[5] = (byte) qd;
    h[7] = (byte) an;
    h[9] = (byte) ns;
    return h;
  }

  @Override
  public void close() {
    socket.close();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
