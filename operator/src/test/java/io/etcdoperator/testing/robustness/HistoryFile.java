package io.etcdoperator.testing.robustness;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A history as a JSON file (gzip-compressed when the name ends in {@code .gz}), so that a run's
 * whole history can be kept and replayed by a unit test ({@code HistoryReplayTest}).
 */
public final class HistoryFile {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .setDefaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private HistoryFile() {}

  public static void write(History history, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (OutputStream out = open(file)) {
      JSON.writeValue(out, history);
    }
  }

  public static History read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString().endsWith(".gz"));
    }
  }

  public static History read(InputStream in, boolean gzip) throws IOException {
    return JSON.readValue(gzip ? new GZIPInputStream(in) : in, History.class);
  }

  private static OutputStream open(Path file) throws IOException {
    OutputStream out = Files.newOutputStream(file);
    return file.toString().endsWith(".gz") ? new GZIPOutputStream(out) : out;
  }
}
