package io.etcdoperator.operator.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.InvalidSpecException;
import io.etcdoperator.operator.model.SpecNotices;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code render -f cluster.yaml}: every object the operator would create for each {@code
 * EtcdCluster} in the files, as multi-document YAML on stdout, for review before applying (as with
 * {@code helm template}). The cluster state is the bootstrap one ({@code new}, members {@code
 * 0..replicas-1}) and the StatefulSet has {@code spec.replicas}. When any resource is invalid,
 * nothing is printed on stdout: every problem goes to stderr, with its field, and the exit code is
 * 1. A manifest not yet applied has no UID: the owner references and the cluster token of the
 * output then lack it.
 */
@Command(
    name = "render",
    mixinStandardHelpOptions = true,
    description =
        "Print, as YAML, every object the operator would create for each EtcdCluster in the"
            + " files, or the validation errors (exit code 1).")
public final class RenderCommand implements Callable<Integer> {
  static final int INVALID = 1;
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper STRICT =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description =
          "A YAML file of EtcdCluster resources (several documents allowed); - for stdin.")
  List<String> files;

  @Option(
      names = {"-n", "--namespace"},
      defaultValue = "default",
      description = "Namespace of resources that name none (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<HasMetadata> objects = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    int clusters = 0;
    boolean failed = false;
    for (String file : files) {
      List<JsonNode> documents;
      try {
        documents = read(file);
      } catch (IOException e) {
        err.println(file + ": cannot read: " + e.getMessage());
        failed = true;
        continue;
      }
      for (JsonNode doc : documents) {
        String what = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        if (!(EtcdCluster.API_VERSION + "/" + EtcdCluster.KIND).equals(what)) {
          err.println(
              file
                  + ": skipping "
                  + what
                  + " "
                  + doc.path("metadata").path("name").asText()
                  + ": not an EtcdCluster");
          continue;
        }
        clusters++;
        String prefix = file + ": EtcdCluster " + doc.path("metadata").path("name").asText() + ": ";
        try {
          EtcdCluster cluster = toCluster(doc);
          EtcdClusterModel model = EtcdClusterModel.of(cluster);
          objects.addAll(render(model));
          boolean emptyDir = !model.usesPersistentStorage();
          notes.add(
              prefix
                  + "storage: "
                  + (emptyDir
                      ? "emptyDir (member data is lost whenever a pod is deleted)"
                      : "a PersistentVolumeClaim per member"));
          SpecNotices.of(cluster.getSpec()).forEach(n -> notes.add(prefix + "warning: " + n));
        } catch (IllegalArgumentException e) {
          err.println(prefix + unreadable(e));
          failed = true;
        } catch (InvalidSpecException e) {
          e.problems().forEach(p -> err.println(prefix + p));
          failed = true;
        }
      }
    }
    if (clusters == 0 && !failed) {
      err.println(
          "no EtcdCluster (" + EtcdCluster.API_VERSION + ") in " + String.join(", ", files));
      failed = true;
    }
    if (failed) {
      return INVALID;
    }
    // What each cluster's storage is, and what of its spec is not done, once all of it is valid.
    notes.forEach(err::println);
    out.print(yaml(objects));
    out.flush();
    return 0;
  }

  /** The objects the operator creates first for a valid cluster. */
  static List<HasMetadata> render(EtcdClusterModel model) {
    return model.all(ClusterState.bootstrap(model), model.replicas());
  }

  /**
   * Writes YAML as kubectl prints it: quotes only where a plain scalar would read as something else
   * (a number, a boolean, null, or text YAML would parse differently), sequences not indented under
   * their key.
   */
  private static final ObjectMapper KUBECTL_YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .stringQuotingChecker(new NumberLikeQuoted())
              .build());

  /**
   * Quotes a value only where YAML would not read it back as this very string: a word YAML 1.1
   * reads as a boolean or null ({@code yes}, {@code off}, {@code ~}, as Jackson lists them), any
   * form a YAML 1.1 or 1.2 reader resolves to a number (exponents without a dot such as {@code
   * 870e1234}, hexadecimal, octal, sexagesimal, infinity, NaN: a pod-template hash can take such a
   * form), and text that is not a valid plain scalar in block context (empty, surrounding spaces, a
   * leading indicator, {@code ": "} or {@code " #"} inside, a trailing colon, a line break).
   * Everything else is plain, as kubectl prints it ({@code -
   * --listen-metrics-urls=http://[::]:2381}).
   */
  static final class NumberLikeQuoted extends StringQuotingChecker.Default {
    private static final long serialVersionUID = 1L;
    private static final Pattern NUMBER_LIKE =
        Pattern.compile(
            "[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?"
                + "|[-+]?0[xX][0-9a-fA-F_]+|[-+]?0[oO]?[0-7_]+|[-+]?0[bB][01_]+"
                + "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?"
                + "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");

    @Override
    public boolean needToQuoteValue(String value) {
      return isReservedKeyword(value)
          || NUMBER_LIKE.matcher(value).matches()
          || !plainInBlock(value);
    }

    /** Whether {@code v} reads back as itself written plain, in block context. */
    static boolean plainInBlock(String v) {
      if (v.isEmpty() || Character.isWhitespace(v.charAt(0))) {
        return false;
      }
      if (Character.isWhitespace(v.charAt(v.length() - 1)) || v.endsWith(":")) {
        return false;
      }
      char first = v.charAt(0);
      if ("[]{},#&*!|>'\"%@`".indexOf(first) >= 0) {
        return false;
      }
      if ("-?:".indexOf(first) >= 0 && (v.length() == 1 || v.charAt(1) == ' ')) {
        return false;
      }
      if (v.startsWith("---") || v.startsWith("...")) {
        return false;
      }
      if (v.contains(": ") || v.contains(" #")) {
        return false;
      }
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c < 0x20 || c == 0x7f || c == '\u0085' || c == '\u2028' || c == '\u2029') {
          return false;
        }
      }
      return true;
    }
  }

  /** Objects as multi-document YAML, each starting with {@code ---}. */
  public static String yaml(List<? extends HasMetadata> objects) {
    StringBuilder sb = new StringBuilder();
    for (HasMetadata o : objects) {
      // fabric8's own serialization decides which fields are written; the text is ours.
      JsonNode tree = SERIALIZATION.convertValue(o, JsonNode.class);
      try {
        sb.append(KUBECTL_YAML.writeValueAsString(tree));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return sb.toString();
  }

  private EtcdCluster toCluster(JsonNode doc) {
    ObjectNode fields = doc.deepCopy();
    // Checked already; EtcdCluster computes both, and logs when they are set.
    fields.remove(List.of("apiVersion", "kind"));
    EtcdCluster cluster = STRICT.convertValue(fields, EtcdCluster.class);
    if (cluster.getMetadata() != null && cluster.getMetadata().getNamespace() == null) {
      cluster.getMetadata().setNamespace(namespace);
    }
    return cluster;
  }

  private List<JsonNode> read(String file) throws IOException {
    String text;
    if ("-".equals(file)) {
      InputStream in = System.in;
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } else {
      text = Files.readString(Path.of(file));
    }
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc != null && doc.isObject()) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  /** A field that does not read into the API classes, as {@code path: reason}. */
  private static String unreadable(IllegalArgumentException e) {
    if (!(e.getCause() instanceof JsonMappingException m)) {
      return "cannot read: " + e.getMessage();
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : m.getPath()) {
      if (r.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    String reason =
        m instanceof UnrecognizedPropertyException
            ? "unknown field"
            : "cannot read: " + m.getOriginalMessage().lines().findFirst().orElse("");
    return (path.isEmpty() ? "" : path + ": ") + reason;
  }
}
