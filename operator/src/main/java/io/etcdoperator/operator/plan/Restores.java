package io.etcdoperator.operator.plan;

import io.etcdoperator.operator.model.Names;
import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import io.etcdoperator.operator.plan.Report.Line;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cluster that starts from a snapshot ({@code spec.bootstrap.restore}): what its bootstrap
 * reports while the members restore or refuse to, how the restore is recorded once the cluster
 * formed ({@value Names#RESTORED_FROM_ANNOTATION} on the cluster-state ConfigMap, {@code
 * <uri>@<revision>@<sha256>@<time>}), and the way out named when the data is gone.
 *
 * <p>A refused restore changes nothing: the member's init container fails before etcd starts, so no
 * member ever starts empty in the snapshot's place; the report names each member's reason (missing
 * object, sha256 mismatch, truncated file, wrong credentials, missing Secret) and what to fix. The
 * kubelet retries the init container with back-off, so a source fixed in the store is picked up; a
 * fixed {@code spec.bootstrap.restore.source} changes the pod template, and pods of a cluster that
 * never formed are replaced at once.
 */
public final class Restores {
  private static final Pattern JSON_FIELD =
      Pattern.compile("\"(uri|revision|sha256|why)\":\"?([^\",}]*)");

  private Restores() {}

  /** The bootstrap report of a cluster that restores. */
  static Report report(Situation s, Step step, String waiting) {
    String uri = s.desired().restoreFrom().orElseThrow();
    Map<Integer, String> problems = s.view().restore().problems();
    if (!problems.isEmpty()) {
      List<String> each = new ArrayList<>();
      problems.forEach((ordinal, why) -> each.add(Names.member(s.name(), ordinal) + ": " + why));
      String message =
          "restoring from "
              + uri
              + " is refused, and no member starts without its data: "
              + String.join("; ", each)
              + ". Fix the snapshot or spec.bootstrap.restore.source (and its credentials Secret);"
              + " the members retry on their own";
      Line failed = new Line(false, Conditions.RESTORE_FAILED, message);
      return new Report(
          failed,
          failed,
          new Line(false, Conditions.RESTORE_FAILED, message),
          new Line(true, Conditions.RESTORE_FAILED, message));
    }
    String restoring = "restoring every member from " + uri + "; " + waiting;
    Line line = new Line(false, Conditions.RESTORING, restoring);
    return new Report(
        line,
        line,
        new Line(
            true, Conditions.RESTORING, step instanceof Step.None ? restoring : step.describe()),
        new Line(false, Conditions.RESTORING, restoring));
  }

  /** The record to keep once the cluster formed, from a member that restored. */
  public static Optional<String> record(ClusterView view) {
    return view.restore().restored().map(Restores::fromAgentLine);
  }

  static String fromAgentLine(String json) {
    String uri = "";
    String revision = "0";
    String sha = "";
    String when = "";
    Matcher m = JSON_FIELD.matcher(json);
    while (m.find()) {
      switch (m.group(1)) {
        case "uri" -> uri = m.group(2);
        case "revision" -> revision = m.group(2);
        case "sha256" -> sha = m.group(2);
        default -> when = m.group(2).replace("restored at ", "");
      }
    }
    return uri + "@" + revision + "@" + sha + "@" + when;
  }

  /** The newest backup, as the way out when the data is gone. */
  static String wayOut(Target target) {
    return target
        .newestBackup()
        .map(
            b ->
                ". The newest backup is "
                    + b
                    + ": restore it into a new EtcdCluster with spec.bootstrap.restore.source")
        .orElse(". No complete EtcdBackup of this cluster exists to restore from");
  }
}
