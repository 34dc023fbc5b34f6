package io.etcdoperator.sandbox.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator's own image, as the sandbox runs it: a container whose image is the operator's
 * ({@code <registry>/etcd-operator:<tag>} or {@code etcd-operator:<tag>}) and that sets no command
 * runs the image's entrypoint, {@code java -jar etcd-operator.jar}, as this JVM's own classes: the
 * same Java binary and class path (the product's classes: the operator and its agents), main class
 * {@code io.etcdoperator.operator.cli.Main}, with the container's arguments. So the backup and
 * restore pods the operator starts run the code under test, and no image is built or pulled. The
 * JVM is kept small (serial GC, 256 MiB heap at most) as in a container with a memory limit.
 */
final class OperatorImage {
  static final String MAIN = "io.etcdoperator.operator.cli.Main";

  private OperatorImage() {}

  /** Whether the container runs the operator's image entrypoint. */
  static boolean runs(Container c) {
    return (c.getCommand() == null || c.getCommand().isEmpty()) && matches(c.getImage());
  }

  static boolean matches(String image) {
    if (image == null) {
      return false;
    }
    String repository = image;
    int at = repository.indexOf('@');
    if (at >= 0) {
      repository = repository.substring(0, at);
    }
    int colon = repository.lastIndexOf(':');
    if (colon > repository.lastIndexOf('/')) {
      repository = repository.substring(0, colon);
    }
    return repository.equals("etcd-operator") || repository.endsWith("/etcd-operator");
  }

  /** The command line: this JVM's java and class path, the operator's main class, {@code args}. */
  static List<String> argv(List<String> args) {
    List<String> argv = new ArrayList<>();
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    argv.add("-XX:+UseSerialGC");
    argv.add("-Xmx256m");
    argv.add("-XX:+ExitOnOutOfMemoryError");
    argv.add("-cp");
    argv.add(System.getProperty("java.class.path"));
    argv.add(MAIN);
    argv.addAll(args);
    return argv;
  }
}
