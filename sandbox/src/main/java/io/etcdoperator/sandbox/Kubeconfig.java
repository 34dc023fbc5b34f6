package io.etcdoperator.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Writes the kubeconfig through which kubectl and other clients reach a running sandbox. */
public final class Kubeconfig {
  private Kubeconfig() {}

  /**
   * Writes the kubeconfig, readable by its owner only (mode 0600): it holds the administrator's
   * token.
   */
  static void write(Path file, String serverUrl, String token) throws IOException {
    String yaml =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: sandbox\n"
            + "  cluster:\n"
            // the API server's certificate is self-signed, made anew at each start
            + "    insecure-skip-tls-verify: true\n"
            + "    server: "
            + serverUrl
            + "\n"
            + "contexts:\n"
            + "- name: sandbox\n"
            + "  context:\n"
            + "    cluster: sandbox\n"
            + "    user: sandbox\n"
            + "    namespace: default\n"
            + "current-context: sandbox\n"
            + "users:\n"
            + "- name: sandbox\n"
            + "  user:\n"
            + "    token: "
            + token
            + "\n";
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, yaml);
  }

  /** The server URL in a kubeconfig this class wrote. */
  public static String server(Path file) throws IOException {
    return field(file, "server:");
  }

  /** The bearer token in a kubeconfig this class wrote. */
  public static String token(Path file) throws IOException {
    return field(file, "token:");
  }

  private static String field(Path file, String key) throws IOException {
    for (String line : Files.readAllLines(file)) {
      String t = line.trim();
      if (t.startsWith(key)) {
        return t.substring(key.length()).trim();
      }
    }
    throw new IOException("no " + key + " in " + file);
  }
}
