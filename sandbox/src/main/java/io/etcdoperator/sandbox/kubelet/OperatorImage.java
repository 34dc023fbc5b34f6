package io.etcdoperator.sandbox.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's own image, as the sandbox runs it: a container whose image is the operator's
 * ({@code <registry>/etcd-operator:<tag>} or {@code etcd-operator:<tag>}) and that sets no command
 * runs the image's entry point as {@code deploy/image/Dockerfile} defines it (read from the
 * Dockerfile as committed, copied onto the sandbox's class path, so the two cannot drift): its
 * {@code ENTRYPOINT}, its {@code CMD} when the container gives no arguments, its {@code ENV} under
 * the container's own environment. The entry point's words are mapped to this machine: {@code java}
 * is this JVM's Java; an {@code @file} argument the Dockerfile {@code COPY}s from the build context
 * (the JVM options) is that file's options as committed; {@code -jar <the image's jar>} is the
 * product jar when the system property {@value #JAR_PROPERTY} names one that exists (the launcher
 * and the e2e tests set it), else this JVM's class path with the jar's main class (the sandbox
 * module's own tests, which run before the product jar is built). A container memory limit is made
 * visible to the JVM as a container runtime's cgroup would make it: {@code -XX:MaxRAM} of the
 * limit.
 */
final class OperatorImage {
  static final String MAIN = "io.etcdoperator.operator.cli.Main";

  /** The system property naming the product jar that the image's jar stands for. */
  static final String JAR_PROPERTY = "etcd-operator.image.jar";

  private static final String RESOURCES = "io/etcdoperator/sandbox/image/";
  private static volatile ImageConfig image;

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

  /** The image's config, read from the Dockerfile on the class path. */
  static ImageConfig image() {
    if (image == null) {
      image = ImageConfig.parse(resource("Dockerfile"));
    }
    return image;
  }

  /** The image's environment with the container's over it. */
  static Map<String, String> env(Map<String, String> container) {
    Map<String, String> env = new LinkedHashMap<>(image().env());
    env.putAll(container);
    return env;
  }

  /**
   * The command line: the image's entry point mapped to this machine, then {@code args} (the
   * image's CMD when empty); {@code memoryLimit} in bytes, or null.
   */
  static List<String> argv(List<String> args, Quantity memoryLimit) {
    ImageConfig config = image();
    List<String> entry = config.entrypoint();
    List<String> argv = new ArrayList<>();
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (memoryLimit != null) {
      argv.add("-XX:MaxRAM=" + Quantity.getAmountInBytes(memoryLimit).toBigInteger());
    }
    for (int i = 1; i < entry.size(); i++) {
      String word = entry.get(i);
      if (word.startsWith("@") && config.copies().containsKey(word.substring(1))) {
        argv.addAll(argumentFile(word.substring(1)));
      } else if (word.equals("-jar") && i + 1 < entry.size()) {
        String jar = System.getProperty(JAR_PROPERTY, "");
        if (!jar.isEmpty() && Files.isRegularFile(Path.of(jar))) {
          argv.add("-jar");
          argv.add(jar);
        } else {
          argv.add("-cp");
          argv.add(System.getProperty("java.class.path"));
          argv.add(MAIN);
        }
        i++;
      } else {
        argv.add(word);
      }
    }
    argv.addAll(args.isEmpty() ? config.cmd() : args);
    return argv;
  }

  /**
   * The words of an argument file the Dockerfile copies into the image, as committed, read as the
   * Java launcher reads an {@code @file}: whitespace-separated, a line starting with {@code #} a
   * comment. (Inlined rather than written out: a pod's own /tmp hides the host's.)
   */
  static List<String> argumentFile(String imagePath) {
    String source = image().copies().get(imagePath);
    String name = source.substring(source.lastIndexOf('/') + 1);
    List<String> words = new ArrayList<>();
    for (String line : resource(name).split("\n")) {
      String l = line.strip();
      if (!l.isEmpty() && !l.startsWith("#")) {
        words.addAll(List.of(l.split("\\s+")));
      }
    }
    return words;
  }

  private static String resource(String name) {
    try (InputStream in =
        OperatorImage.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "no " + RESOURCES + name + " on the class path (deploy/image is copied there)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
