package io.etcdoperator.sandbox.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
}
