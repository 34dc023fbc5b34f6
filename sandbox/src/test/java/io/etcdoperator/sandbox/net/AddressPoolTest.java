package io.etcdoperator.sandbox.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AddressPoolTest {
  @TempDir Path dir;

  @Test
  void twoPoolsNeverHandOutTheSameAddressAndAddressesAreFresh() throws Exception {
    try (AddressPool a = new AddressPool(dir, List.of(2379));
        AddressPool b = new AddressPool(dir, List.of(2379))) {
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < 50; i++) {
        String x = a.acquire();
        String y = b.acquire();
        assertThat(AddressPool.inRange(x)).isTrue();
        assertThat(seen.add(x)).isTrue();
        assertThat(seen.add(y)).isTrue();
        a.release(x);
        b.release(y);
      }
    }
  }

  @Test
  void anAddressWithSomethingListeningOrLockedIsSkipped() throws Exception {
    int start = 1000 + new java.util.Random().nextInt(100_000);
    try (AddressPool first = new AddressPool(dir, List.of(2379), start)) {
      String busy = first.acquire();
      first.release(busy);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getByName(busy), 2379));
        try (AddressPool p = new AddressPool(dir, List.of(2379), start)) {
          String got = p.acquire();
          assertThat(got).isNotEqualTo(busy);
          // and a second pool starting at the same place skips what the first holds
          try (AddressPool q = new AddressPool(dir, List.of(2379), start)) {
            assertThat(q.acquire()).isNotEqualTo(busy).isNotEqualTo(got);
          }
        }
      }
    }
  }
}
