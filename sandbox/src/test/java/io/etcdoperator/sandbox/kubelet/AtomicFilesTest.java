package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @TempDir Path dir;

  static AtomicFiles.Entry file(String content, int mode) {
    return new AtomicFiles.Entry(content.getBytes(StandardCharsets.UTF_8), mode);
  }

  @Test
  void filesAreSymlinksIntoTheCurrentDataDirectoryWithTheirModes() throws Exception {
    assertThat(
            AtomicFiles.write(
                dir, Map.of("tls.crt", file("c1", 0440), "sub/ca.crt", file("a1", 0400)), null))
        .isTrue();
    assertThat(Files.isSymbolicLink(dir.resolve("tls.crt"))).isTrue();
    assertThat(Files.isSymbolicLink(dir.resolve(AtomicFiles.DATA))).isTrue();
    assertThat(Files.readString(dir.resolve("tls.crt"))).isEqualTo("c1");
    assertThat(Files.readString(dir.resolve("sub/ca.crt"))).isEqualTo("a1");
    assertThat((Integer) Files.getAttribute(dir.resolve("tls.crt"), "unix:mode") & 0777)
        .isEqualTo(0440);
    // the same content again writes nothing
    assertThat(
            AtomicFiles.write(
                dir, Map.of("tls.crt", file("c1", 0440), "sub/ca.crt", file("a1", 0400)), null))
        .isFalse();
  }

  @Test
  void anUpdateReplacesEveryFileAtOnceAndDropsWhatIsGone() throws Exception {
    AtomicFiles.write(dir, Map.of("tls.crt", file("c1", 0644), "tls.key", file("k1", 0600)), null);
    Path oldData = dir.resolve(Files.readSymbolicLink(dir.resolve(AtomicFiles.DATA)));
    assertThat(AtomicFiles.write(dir, Map.of("tls.crt", file("c2", 0644)), null)).isTrue();
    assertThat(Files.readString(dir.resolve("tls.crt"))).isEqualTo("c2");
    assertThat(Files.exists(dir.resolve("tls.key"), java.nio.file.LinkOption.NOFOLLOW_LINKS))
        .isFalse();
    assertThat(Files.exists(oldData)).as("the old data directory is removed").isFalse();
  }

  @Test
  void aReaderOfBothFilesThroughDataNeverSeesOneOfEachPair() throws Exception {
    AtomicFiles.write(dir, Map.of("tls.crt", file("0", 0644), "tls.key", file("0", 0644)), null);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger mixed = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    Thread reader =
        new Thread(
            () -> {
              while (!done.get()) {
                try {
                  // resolve ..data once, as a process holding the directory open does
                  Path data = dir.resolve(Files.readSymbolicLink(dir.resolve(AtomicFiles.DATA)));
                  String c = Files.readString(data.resolve("tls.crt"));
                  String k = Files.readString(data.resolve("tls.key"));
                  reads.incrementAndGet();
                  if (!c.equals(k)) {
                    mixed.incrementAndGet();
                  }
                } catch (java.io.IOException e) {
                  // the old directory was removed between the two reads: a retry, as on a node
                }
              }
            });
    reader.start();
    for (int i = 1; i <= 200; i++) {
      String v = String.valueOf(i);
      AtomicFiles.write(dir, Map.of("tls.crt", file(v, 0644), "tls.key", file(v, 0644)), null);
    }
    done.set(true);
    reader.join(10_000);
    assertThat(mixed.get()).isZero();
    assertThat(Files.readString(dir.resolve("tls.key"))).isEqualTo("200");
  }
}
