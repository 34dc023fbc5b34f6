package io.etcdoperator.sandbox.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostsFileTest {
  @TempDir Path dir;

  @Test
  void rewritesInPlaceKeepingTheInode() throws Exception {
    Path f = dir.resolve("hosts");
    Map<String, List<String>> entries = new LinkedHashMap<>();
    entries.put("etcd-0.etcd-headless.default.svc", List.of("127.20.0.1"));
    HostsFile.write(f, HostsFile.render("test", entries));
    Object inode = Files.readAttributes(f, BasicFileAttributes.class).fileKey();
    entries.put("etcd-0.etcd-headless.default.svc", List.of("127.20.0.7"));
    entries.put("etcd.default.svc", List.of("127.20.0.7", "127.20.0.8"));
    HostsFile.write(f, HostsFile.render("test", entries));
    assertThat(Files.readAttributes(f, BasicFileAttributes.class).fileKey()).isEqualTo(inode);
    assertThat(Files.readString(f))
        .contains("127.0.0.1\tlocalhost")
        .contains("127.20.0.7\tetcd-0.etcd-headless.default.svc")
        .contains("127.20.0.8\tetcd.default.svc")
        .doesNotContain("127.20.0.1\t");
  }

  /**
   * A reader of a file replaced over and over always finds every name: never a half-written file.
   */
  @Test
  void aReplacedFileIsNeverSeenHalfWritten() throws Exception {
    Path f = dir.resolve("jvm-hosts");
    assertThat(readerSeesEveryWrite(f, true)).isZero();
  }

  /**
   * Rewrites the file while another thread reads it, until the reader missed the name or read it 20
   * 000 times (10 s at most); returns how often it missed. Written in place ({@code replace}
   * false), the reader misses it within a few hundred writes.
   */
  private static int readerSeesEveryWrite(Path f, boolean replace) throws Exception {
    String name = "etcd-0.etcd-headless.default.svc";
    HostsFile.write(f, HostsFile.render("test", Map.of(name, List.of("127.20.0.0"))));
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger misses = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    Thread reader =
        new Thread(
            () -> {
              while (!done.get()) {
                try {
                  if (!Files.readString(f).contains(name)) {
                    misses.incrementAndGet();
                  }
                } catch (java.io.IOException e) {
                  misses.incrementAndGet();
                }
                reads.incrementAndGet();
              }
            });
    reader.start();
    try {
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      for (int i = 1; i < 100_000; i++) {
        String content = HostsFile.render("test", Map.of(name, List.of("127.20.0." + i % 250)));
        if (replace) {
          HostsFile.replace(f, content);
        } else {
          HostsFile.write(f, content);
        }
        if (reads.get() > 20_000 || misses.get() > 0 || System.nanoTime() > deadline) {
          break;
        }
      }
    } finally {
      done.set(true);
      reader.join();
    }
    return misses.get();
  }
}
