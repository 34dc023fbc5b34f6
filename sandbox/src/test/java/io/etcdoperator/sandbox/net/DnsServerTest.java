package io.etcdoperator.sandbox.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DnsServerTest {
  static byte[] query(int id, String name, int type) {
    ByteArrayOutputStream q = new ByteArrayOutputStream();
    q.write(id >> 8);
    q.write(id);
    q.write(0x01); // RD
    q.write(0);
    q.writeBytes(new byte[] {0, 1, 0, 0, 0, 0, 0, 0});
    for (String label : name.split("\\.")) {
      q.write(label.length());
      q.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
    }
    q.write(0);
    q.write(0);
    q.write(type);
    q.write(0);
    q.write(1);
    return q.toByteArray();
  }

  static byte[] ask(DnsServer server, byte[] query) throws Exception {
    try (DatagramSocket s = new DatagramSocket()) {
      s.setSoTimeout(2000);
      s.send(
          new DatagramPacket(
              query, query.length, InetAddress.getByName(server.address()), server.port()));
      byte[] buf = new byte[512];
      DatagramPacket p = new DatagramPacket(buf, buf.length);
      s.receive(p);
      return java.util.Arrays.copyOf(buf, p.getLength());
    }
  }

  @Test
  void answersKnownNamesWithTtlZeroAndNothingElse() throws Exception {
    Map<String, List<String>> records =
        Map.of("etcd.default.svc.cluster.local", List.of("127.20.0.1", "127.20.0.2"));
    try (DnsServer server =
        new DnsServer("127.0.0.1", 0, n -> records.getOrDefault(n, List.of()))) {
      byte[] a = ask(server, query(7, "ETCD.default.svc.cluster.local", 1));
      assertThat(a[0]).isEqualTo((byte) 0);
      assertThat(a[1]).isEqualTo((byte) 7);
      assertThat(a[3] & 0x0f).isZero();
      assertThat(a[7]).isEqualTo((byte) 2);
      assertThat(java.util.Arrays.copyOfRange(a, a.length - 4, a.length))
          .containsExactly(127, 20, 0, 2);

      byte[] aaaa = ask(server, query(8, "etcd.default.svc.cluster.local", 28));
      assertThat(aaaa[3] & 0x0f).isZero();
      assertThat(aaaa[7]).isZero();

      byte[] unknown = ask(server, query(9, "ifconfig.me", 1));
      assertThat(unknown[3] & 0x0f).isEqualTo(3);
      assertThat(unknown[7]).isZero();
    }
  }
}
