package io.etcdoperator.sandbox.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The links between members, with an echo server on a loopback address standing in for the member
 * at the far end (port 2380, as etcd's peer port): bytes go through; a cut link holds them, on a
 * connection made before the cut and on one made during it, and lets them through once healed; a
 * delayed link adds its delay; a link goes to the member's address of the moment.
 */
class PeerLinksTest {
  @TempDir Path dir;
  private AddressPool pool;
  private PeerLinks links;
  private final Map<String, String> addresses = new java.util.concurrent.ConcurrentHashMap<>();
  private ServerSocket echo;

  @BeforeEach
  void start() throws Exception {
    pool = new AddressPool(dir, List.of(2379, 2380));
    links = new PeerLinks(pool, addresses::get);
    echo = echoServer(pool.acquire());
    addresses.put("b.peers.ns.svc", echo.getInetAddress().getHostAddress());
  }

  @AfterEach
  void stop() throws Exception {
    links.close();
    echo.close();
    pool.close();
  }

  private static ServerSocket echoServer(String address) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getByName(address), 2380));
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try {
                  Socket c = s.accept();
                  Thread pump =
                      new Thread(
                          () -> {
                            try (c;
                                InputStream in = c.getInputStream();
                                OutputStream out = c.getOutputStream()) {
                              in.transferTo(out);
                            } catch (IOException e) {
                              // closed
                            }
                          });
                  pump.setDaemon(true);
                  pump.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
    return s;
  }

  private Socket connect(String address) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(InetAddress.getByName(address), 2380), 1000);
    return s;
  }

  /** Sends one byte and waits for its echo at most {@code wait}; true if it came back. */
  private static boolean roundTrip(Socket s, Duration wait) throws IOException {
    s.getOutputStream().write(42);
    s.getOutputStream().flush();
    s.setSoTimeout((int) wait.toMillis());
    try {
      return new DataInputStream(s.getInputStream()).read() == 42;
    } catch (SocketTimeoutException e) {
      return false;
    }
  }

  @Test
  void bytesGoThroughAndAPodKeepsItsLinkAddress() throws Exception {
    String a = links.address("ns", "a", "b", "b.peers.ns.svc");
    assertThat(links.address("ns", "a", "b", "b.peers.ns.svc")).isEqualTo(a);
    assertThat(links.address("ns", "c", "b", "b.peers.ns.svc")).isNotEqualTo(a);
    try (Socket s = connect(a)) {
      assertThat(roundTrip(s, Duration.ofSeconds(2))).isTrue();
    }
  }

  @Test
  void aCutLinkHoldsTheBytesOfOldAndNewConnectionsUntilHealed() throws Exception {
    String a = links.address("ns", "a", "b", "b.peers.ns.svc");
    links.address("ns", "b", "a", "a.peers.ns.svc");
    try (Socket before = connect(a)) {
      assertThat(roundTrip(before, Duration.ofSeconds(2))).isTrue();
      links.cut("ns", "a", "b", true);
      assertThat(links.state()).containsEntry("ns/a->b", "cut").containsEntry("ns/b->a", "cut");
      assertThat(roundTrip(before, Duration.ofMillis(500))).isFalse();
      try (Socket during = connect(a)) {
        assertThat(roundTrip(during, Duration.ofMillis(500))).isFalse();
        links.heal("ns");
        // what waited comes through: the byte sent while cut, then a new one
        during.setSoTimeout(2000);
        assertThat(during.getInputStream().read()).isEqualTo(42);
        assertThat(roundTrip(during, Duration.ofSeconds(2))).isTrue();
      }
      before.setSoTimeout(2000);
      assertThat(before.getInputStream().read()).isEqualTo(42);
    }
  }

  @Test
  void aDelayedLinkTakesItsDelay() throws Exception {
    String a = links.address("ns", "a", "b", "b.peers.ns.svc");
    links.address("ns", "b", "a", "a.peers.ns.svc");
    links.delay("ns", "a", "b", Duration.ofMillis(200));
    try (Socket s = connect(a)) {
      long start = System.nanoTime();
      assertThat(roundTrip(s, Duration.ofSeconds(3))).isTrue();
      // once out, once back: two chunks forwarded
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(400));
    }
  }

  @Test
  void aLinkGoesToWhereTheMemberIsNow() throws Exception {
    String a = links.address("ns", "a", "b", "b.peers.ns.svc");
    try (ServerSocket moved = echoServer(pool.acquire())) {
      addresses.put("b.peers.ns.svc", moved.getInetAddress().getHostAddress());
      echo.close();
      try (Socket s = connect(a)) {
        assertThat(roundTrip(s, Duration.ofSeconds(2))).isTrue();
      }
    }
  }

  @Test
  void aLinkBetweenPodsThatHaveNoneIsRefusedByName() {
    assertThatThrownBy(() -> links.cut("ns", "x", "y", true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no link from ns/x to y");
  }

  /**
   * Something listens on the first free address's port 2382 (the pool checks 2379 and 2380 only
   * here, as another sandbox's member could start listening after any check): the link moves on to
   * another address instead of failing.
   */
  @Test
  void aLinkWhoseAddressIsTakenMovesOnToAnother() throws Exception {
    int start = 4242;
    String first;
    try (AddressPool probe = new AddressPool(dir, List.of(2379, 2380), start)) {
      first = probe.acquire();
    }
    try (ServerSocket squatter = new ServerSocket();
        AddressPool fixed = new AddressPool(dir, List.of(2379, 2380), start);
        PeerLinks fromFixed = new PeerLinks(fixed, addresses::get)) {
      squatter.setReuseAddress(true);
      squatter.bind(new InetSocketAddress(InetAddress.getByName(first), 2382));
      String a = fromFixed.address("ns", "a", "b", "b.peers.ns.svc");
      assertThat(a).isNotEqualTo(first);
      try (Socket s = connect(a)) {
        assertThat(roundTrip(s, Duration.ofSeconds(2))).isTrue();
      }
    }
  }
}
