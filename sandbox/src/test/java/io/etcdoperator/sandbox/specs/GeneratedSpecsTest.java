package io.etcdoperator.sandbox.specs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdoperator.api.v1alpha1.EtcdBackup;
import io.etcdoperator.api.v1alpha1.EtcdBackupSchedule;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.operator.model.BackupPods;
import io.etcdoperator.operator.model.BackupSpecs;
import io.etcdoperator.operator.model.ClusterState;
import io.etcdoperator.operator.model.EtcdClusterModel;
import io.etcdoperator.operator.model.InvalidSpecException;
import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Security;
import io.etcdoperator.operator.model.SpecProblem;
import io.etcdoperator.operator.plan.SchedulePlan;
import io.etcdoperator.operator.plan.ScheduleViews;
import io.etcdoperator.sandbox.api.admission.CoreValidation;
import io.etcdoperator.sandbox.api.admission.FieldError;
import io.etcdoperator.sandbox.api.admission.Formats;
import io.etcdoperator.sandbox.api.admission.PodSecurity;
import io.etcdoperator.sandbox.api.admission.StructuralSchema;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * Any spec, never a crash, never an accepted-then-refused write: EtcdCluster, EtcdBackup and
 * EtcdBackupSchedule documents drawn from the CRDs' own schemas ({@link SchemaDocuments}) and edits
 * of the examples people write ({@link Mutations}) go the way a real one goes.
 *
 * <ol>
 *   <li>The API server: the name must be a DNS subdomain, then the CRD's structural schema prunes,
 *       defaults and validates it, CEL rules included (the sandbox's own {@link StructuralSchema},
 *       which is what the sandbox's API server runs). Refused here: the user sees the 422 at apply,
 *       and nothing reaches the operator.
 *   <li>The operator reads it as the operator's client does, and builds what it would write: the
 *       cluster's objects ({@code render}'s output), a backup's agent pod, a schedule's backups and
 *       archiver pod. Refused here: every problem names a field under {@code spec} or {@code
 *       metadata}.
 *   <li>What it would write, the API server must admit: the sandbox's core validation of each
 *       object (the StatefulSet after the server's defaults), and the "restricted" Pod Security
 *       level for every pod the operator itself shapes (a user's own pod template may ask for less:
 *       then the same spec without it must pass).
 * </ol>
 *
 * Anything else fails the property: an exception from the operator's code, an object the API server
 * would answer with 422, a refusal without a field. A cluster's objects are also rendered twice and
 * must be the same (a desired state that changes by itself is a reconcile that loops).
 *
 * <p>Tries: {@code jqwik.tries.default} (1,000 per property in README's test command, 20,000 with
 * {@code -Plong}). A failing document is written to {@code target/generated-specs/} to replay; each
 * bug these found has a fixed document in {@link GeneratedSpecsRegressionTest}. jqwik prints how
 * the documents went; {@code -Dsandbox.jvm.args=-Dgenerated.specs.why=true} also prints the first
 * reason of each refusal.
 */
class GeneratedSpecsTest {
  /**
   * {@code -Dgenerated.specs.why=true} (in the test JVM): also count why documents were refused.
   */
  private static final boolean WHY = Boolean.getBoolean("generated.specs.why");

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
  private static final String IMAGE = Names.DEFAULT_OPERATOR_IMAGE;

  private static final JsonNode CLUSTER_SCHEMA = schema("etcdclusters");
  private static final JsonNode BACKUP_SCHEMA = schema("etcdbackups");
  private static final JsonNode SCHEDULE_SCHEMA = schema("etcdbackupschedules");
  static final List<Example> EXAMPLES = examples();

  /** A document people wrote, and where it comes from. */
  record Example(String source, ObjectNode doc) {}

  @Property
  void anEtcdClusterFromTheSchema(@ForAll long seed) {
    SchemaDocuments g = new SchemaDocuments(seed, hostility(seed));
    ObjectNode doc = document(g, "EtcdCluster", CLUSTER_SCHEMA);
    Statistics.label("EtcdCluster from the schema").collect(cluster(doc, seed));
  }

  @Property
  void anEditedExample(@ForAll long seed) {
    SchemaDocuments g = new SchemaDocuments(seed);
    ObjectNode doc = Mutations.mutate(g.pick(EXAMPLES).doc(), g);
    Statistics.label("edited example").collect(cluster(doc, seed));
  }

  @Property
  void anEtcdBackupFromTheSchema(@ForAll long seed) {
    SchemaDocuments g = new SchemaDocuments(seed, hostility(seed));
    ObjectNode doc = document(g, "EtcdBackup", BACKUP_SCHEMA);
    Statistics.label("EtcdBackup from the schema").collect(backup(doc, seed));
  }

  @Property
  void anEtcdBackupScheduleFromTheSchema(@ForAll long seed) {
    SchemaDocuments g = new SchemaDocuments(seed, hostility(seed));
    ObjectNode doc = document(g, "EtcdBackupSchedule", SCHEDULE_SCHEMA);
    Statistics.label("EtcdBackupSchedule from the schema").collect(schedule(doc, seed));
  }

  /** A third of the documents clean, a third a little hostile, a third fully. */
  static double hostility(long seed) {
    return new double[] {0, 0.3, 1}[(int) Math.floorMod(seed, 3L)];
  }

  // --- the three ways a document goes ---

  static String cluster(ObjectNode doc, long seed) {
    return checked(
        doc,
        seed,
        () -> {
          if (!admitted(doc, CLUSTER_SCHEMA)) {
            return "refused by the API server (schema)";
          }
          EtcdCluster cluster = read(doc, EtcdCluster.class);
          EtcdClusterModel model;
          try {
            model = EtcdClusterModel.of(cluster);
          } catch (InvalidSpecException e) {
            if (WHY) {
              Statistics.label("operator")
                  .collect(
                      e.problems().get(0).field().replaceAll("\\[\\d+\\]", "[]")
                          + ": "
                          + e.problems().get(0).message().replaceAll("'.*", ""));
            }
            for (SpecProblem p : e.problems()) {
              assertThat(p.field()).as("the field of %s", p).matches("(spec|metadata)(\\..+)?");
            }
            return "refused by the operator";
          }
          List<HasMetadata> objects = model.all(ClusterState.bootstrap(model), model.replicas());
          for (HasMetadata o : objects) {
            admittedObject(o);
          }
          List<String> restricted = restrictedViolations(model);
          if (!restricted.isEmpty()) {
            ObjectNode without = doc.deepCopy();
            ((ObjectNode) without.path("spec")).remove("podTemplate");
            EtcdClusterModel ours = EtcdClusterModel.of(read(without, EtcdCluster.class));
            assertThat(restrictedViolations(ours))
                .as("Pod Security \"restricted\" of the operator's own pod")
                .isEmpty();
          }
          EtcdClusterModel again = EtcdClusterModel.of(read(doc, EtcdCluster.class));
          assertThat(again.podTemplateHash())
              .as("the same spec renders the same pod")
              .isEqualTo(model.podTemplateHash());
          return restricted.isEmpty()
              ? "admitted, restricted"
              : "admitted, less than restricted as its pod template asks";
        });
  }

  static String backup(ObjectNode doc, long seed) {
    return checked(
        doc,
        seed,
        () -> {
          if (!admitted(doc, BACKUP_SCHEMA)) {
            return "refused by the API server (schema)";
          }
          EtcdBackup backup = read(doc, EtcdBackup.class);
          List<String> problems = BackupSpecs.validate(backup);
          if (!problems.isEmpty()) {
            problems.forEach(p -> assertThat(p).matches("(?s)(spec|metadata)\\.[^ ]+: .+"));
            return "refused by the operator";
          }
          admittedObject(
              BackupPods.backup(
                  backup,
                  "demo-0",
                  Names.clientUrl("default", "demo", 0),
                  1,
                  IMAGE,
                  Security.NONE));
          return "admitted";
        });
  }

  static String schedule(ObjectNode doc, long seed) {
    return checked(
        doc,
        seed,
        () -> {
          if (!admitted(doc, SCHEDULE_SCHEMA)) {
            return "refused by the API server (schema)";
          }
          EtcdBackupSchedule schedule = read(doc, EtcdBackupSchedule.class);
          schedule.getMetadata().setCreationTimestamp(NOW.minusSeconds(7200).toString());
          SchedulePlan.Decision d =
              SchedulePlan.decide(ScheduleViews.of(schedule, List.of(), NOW), null);
          boolean refused =
              d.status().getConditions().stream()
                  .anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()));
          if (refused) {
            d.status().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .forEach(c -> assertThat(c.getMessage()).containsPattern("(spec|metadata)\\."));
            return "refused by the operator";
          }
          if (d.create().isPresent()) {
            EtcdBackup b = ScheduleViews.backup(schedule, d.create().get());
            ObjectNode written = SERIALIZATION.convertValue(b, ObjectNode.class);
            written.put("apiVersion", b.getApiVersion()).put("kind", b.getKind());
            assertThat(admitted(written, BACKUP_SCHEMA))
                .as("the API server admits the backup a firing creates: %s", written)
                .isTrue();
            List<FieldError> labels = new ArrayList<>();
            b.getMetadata()
                .getLabels()
                .forEach(
                    (k, v) ->
                        Formats.labelValue(v)
                            .forEach(m -> labels.add(FieldError.invalid("metadata.labels", v, m))));
            assertThat(labels).as("the labels of the backup a firing creates").isEmpty();
          }
          if (ScheduleViews.continuous(schedule.getSpec())) {
            admittedObject(BackupPods.archiver(schedule, IMAGE, Security.NONE));
          }
          return d.create().isPresent() ? "admitted, a backup made" : "admitted";
        });
  }

  /** As the operator's client reads what the API server sends: JSON text. */
  static <T> T read(JsonNode doc, Class<T> type) {
    return SERIALIZATION.unmarshal(doc.toString(), type);
  }

  // --- the API server's side ---

  /** Name, prune, default, validate: the document as the API server stores it, or false. */
  static boolean admitted(ObjectNode doc, JsonNode crdSchema) {
    String name = doc.path("metadata").path("name").asText("");
    if (!Formats.dns1123Subdomain(name).isEmpty()) {
      return false;
    }
    StructuralSchema schema = new StructuralSchema(crdSchema);
    schema.pruneAndDefault(doc);
    List<FieldError> errors = schema.validate(doc, null);
    if (!errors.isEmpty() && WHY) {
      Statistics.label("why")
          .collect(
              errors.get(0).field().replaceAll("\\[\\d+\\]", "[]").replaceAll("^.*\\.", "")
                  + " "
                  + errors.get(0).type());
    }
    errors.forEach(e -> assertThat(e.field()).as("a schema error names its field").isNotNull());
    return errors.isEmpty();
  }

  /** The API server admits {@code o} as the operator would write it (no 422). */
  static void admittedObject(HasMetadata o) {
    ObjectNode json = SERIALIZATION.convertValue(o, ObjectNode.class);
    String[] type = TYPES.get(o.getKind());
    assertThat(type).as("a kind the check knows: %s", o.getKind()).isNotNull();
    if (type[0].equals("apps")) {
      CoreValidation.mutate(type[0], type[1], json, null, null);
    }
    assertThat(CoreValidation.validate(type[0], type[1], json, null))
        .as("the API server's answer to %s %s", o.getKind(), o.getMetadata().getName())
        .isEmpty();
    JsonNode pod =
        o.getKind().equals("Pod") ? json.path("spec") : json.path("spec").path("template");
    if (o.getKind().equals("Pod")) {
      assertThat(PodSecurity.violations("restricted", pod))
          .as("Pod Security \"restricted\" of %s", o.getMetadata().getName())
          .isEmpty();
    }
  }

  private static final Map<String, String[]> TYPES =
      Map.of(
          "StatefulSet", new String[] {"apps", "statefulsets"},
          "Service", new String[] {"", "services"},
          "PodDisruptionBudget", new String[] {"policy", "poddisruptionbudgets"},
          "ConfigMap", new String[] {"", "configmaps"},
          "Secret", new String[] {"", "secrets"},
          "Pod", new String[] {"", "pods"},
          "PersistentVolumeClaim", new String[] {"", "persistentvolumeclaims"});

  static List<String> restrictedViolations(EtcdClusterModel model) {
    StatefulSet sts = model.statefulSet(Math.max(1, model.replicas()));
    JsonNode spec =
        SERIALIZATION.convertValue(sts.getSpec().getTemplate().getSpec(), JsonNode.class);
    return PodSecurity.violations("restricted", spec);
  }

  // --- documents ---

  static ObjectNode document(SchemaDocuments g, String kind, JsonNode schema) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("apiVersion", EtcdCluster.API_VERSION).put("kind", kind);
    ObjectNode meta = doc.putObject("metadata");
    meta.put("name", g.chance(0.9) ? g.pick(List.of("demo", "etcd", "a", "test")) : hostileName(g));
    meta.put("namespace", "default");
    meta.put("uid", "00000000-0000-0000-0000-" + String.format("%012d", g.random().nextInt(1000)));
    doc.set("spec", g.value(schema.path("properties").path("spec"), "spec", 0));
    return doc;
  }

  private static String hostileName(SchemaDocuments g) {
    return g.pick(
        List.of(
            "x".repeat(52),
            "x".repeat(60),
            "x".repeat(63),
            "x".repeat(64),
            "a.b",
            "a-b-c",
            "Upper",
            "9-lives"));
  }

  private static String checked(ObjectNode doc, long seed, Check check) {
    ObjectNode original = doc.deepCopy();
    try {
      return check.run();
    } catch (AssertionError | RuntimeException | InvalidSpecException e) {
      Path failure = Path.of("target", "generated-specs", "failure-" + seed + ".yaml");
      try {
        Files.createDirectories(failure.getParent());
        Files.writeString(failure, YAML.writeValueAsString(original));
      } catch (IOException io) {
        throw new UncheckedIOException(io);
      }
      throw new AssertionError(
          "seed " + seed + ", document in " + failure.toAbsolutePath() + ": " + e, e);
    }
  }

  @FunctionalInterface
  private interface Check {
    String run() throws InvalidSpecException;
  }

  private static JsonNode schema(String plural) {
    String resource = "/META-INF/fabric8/" + plural + ".etcd.aenix.io-v1.yml";
    try (InputStream in = GeneratedSpecsTest.class.getResourceAsStream(resource)) {
      JsonNode crd = YAML.readTree(in);
      return crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** aenix's published examples and ours: the operator's test resources and examples/. */
  private static List<Example> examples() {
    List<Example> out = new ArrayList<>();
    List<String> resources =
        List.of(
            "aenix/etcdcluster-simple.yaml",
            "aenix/etcdcluster-full.yaml",
            "aenix/etcdcluster-kamaji.yaml",
            "aenix/etcdcluster-persistent.yaml",
            "aenix/etcdcluster-emptydir.yaml",
            "aenix/etcdcluster-resources.yaml",
            "aenix/etcdcluster-custom-image.yaml",
            "aenix/etcdcluster-with-default-pdb.yaml",
            "aenix/etcdcluster-with-external-certificates.yaml",
            "golden/tls.input.yaml",
            "golden/custom-pvc.input.yaml",
            "golden/service-and-pdb-templates.input.yaml");
    try {
      for (String r : resources) {
        try (InputStream in = GeneratedSpecsTest.class.getResourceAsStream("/" + r)) {
          assertThat(in).as(r).isNotNull();
          addClusters(r, YAML.readValues(YAML.createParser(in), JsonNode.class).readAll(), out);
        }
      }
      try (Stream<Path> files = Files.walk(Path.of("..", "examples"))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
          addClusters(
              f.toString(),
              YAML.readValues(YAML.createParser(f.toFile()), JsonNode.class).readAll(),
              out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(out).hasSizeGreaterThan(10);
    return out;
  }

  private static void addClusters(String source, List<JsonNode> docs, List<Example> out) {
    for (JsonNode d : docs) {
      if (d != null && "EtcdCluster".equals(d.path("kind").asText())) {
        ObjectNode o = d.deepCopy();
        ObjectNode meta = (ObjectNode) o.path("metadata");
        meta.put("namespace", "default");
        meta.put("uid", "00000000-0000-0000-0000-000000000001");
        out.add(new Example(source, o));
      }
    }
  }
}
