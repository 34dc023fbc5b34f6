package io.etcdoperator.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No main file of the operator is over 400 lines (CONTRIBUTING.md): a class that grows past it does
 * more than one thing, and is split along what it does before it grows further.
 */
class FileSizeTest {
  static final int LIMIT = 400;

  @Test
  void noMainFileIsOverTheLimit() throws IOException {
    assertThat(overLimit(Path.of("src", "main", "java"))).isEmpty();
  }

  @Test
  void aLongFileIsFound(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("a"));
    Files.write(dir.resolve("a/Long.java"), Collections.nCopies(LIMIT + 1, "x"));
    Files.write(dir.resolve("a/Short.java"), List.of("x"));
    assertThat(overLimit(dir)).containsOnlyKeys("a/Long.java");
  }

  /** Each Java file under {@code root} longer than the limit, with its length. */
  static Map<String, Integer> overLimit(Path root) throws IOException {
    Map<String, Integer> over = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        int lines = Files.readAllLines(f).size();
        if (lines > LIMIT) {
          over.put(root.relativize(f).toString(), lines);
        }
      }
    }
    return over;
  }
}
