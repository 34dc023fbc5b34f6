package io.etcdoperator.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes the kubeconfig through which kubectl and other clients reach a running sandbox. */
final class Kubeconfig {
  private Kubeconfig() {}

  static void write(Path file, String serverUrl) throws IOException {
    String yaml =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: sandbox\n"
            + "  cluster:\n"
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
            + "  user: {}\n";
    Files.writeString(file, yaml);
  }

  /** The server URL in a kubeconfig this class wrote. */
  static String server(Path file) throws IOException {
    for (String line : Files.readAllLines(file)) {
      String t = line.trim();
      if (t.startsWith("server:")) {
        return t.substring("server:".length()).trim();
      }
    }
    throw new IOException("no server in " + file);
  }
}
