package io.etcdoperator.sandbox.api.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one identity asked the API server for: every distinct (verb, API group, resource or
 * resource/subresource, namespace or cluster scope), whether RBAC allowed it or not. Admission
 * checks that authorize on the user's behalf (blockOwnerDeletion needs {@code update} on the
 * owner's {@code finalizers}) count as uses too.
 */
public final class RbacUsage {
  /**
   * One use.
   *
   * @param verb the RBAC verb
   * @param group the API group ("" for core)
   * @param resource {@code resource} or {@code resource/subresource}
   * @param namespace the namespace, or "" at the cluster scope
   * @param allowed whether RBAC allowed it
   */
  public record Use(String verb, String group, String resource, String namespace, boolean allowed) {
    /**
     * One tab-separated line: verb, group, resource, namespace ({@code *} for cluster scope),
     * allowed.
     */
    public String line() {
      return String.join(
          "\t",
          verb,
          group.isEmpty() ? "core" : group,
          resource,
          namespace.isEmpty() ? "*" : namespace,
          allowed ? "allowed" : "forbidden");
    }

    /** Parses {@link #line()}. */
    public static Use parse(String line) {
      String[] f = line.split("\t");
      return new Use(
          f[0],
          f[1].equals("core") ? "" : f[1],
          f[2],
          f[3].equals("*") ? "" : f[3],
          f[4].equals("allowed"));
    }

    /** The request this use stands for (for checking it against other grants). */
    public RequestInfo request() {
      int slash = resource.indexOf('/');
      return new RequestInfo(
          verb,
          true,
          group,
          slash < 0 ? resource : resource.substring(0, slash),
          slash < 0 ? null : resource.substring(slash + 1),
          "",
          namespace,
          "");
    }
  }

  private final Set<Use> uses = ConcurrentHashMap.newKeySet();
  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();

  public void record(RequestInfo request, boolean allowed) {
    if (request.resourceRequest()) {
      requests.computeIfAbsent(request.verb(), v -> new LongAdder()).increment();
      uses.add(
          new Use(
              request.verb(),
              request.group(),
              request.resourceWithSubresource(),
              request.namespace(),
              allowed));
    }
  }

  /**
   * How many requests of each verb so far (get, list, watch, create, update, patch, delete), every
   * one counted, not only distinct uses.
   */
  public Map<String, Long> requests() {
    Map<String, Long> out = new TreeMap<>();
    requests.forEach((verb, n) -> out.put(verb, n.sum()));
    return out;
  }

  /** The verbs that change what the API server holds. */
  public static final Set<String> WRITES = Set.of("create", "update", "patch", "delete");

  /** How many requests so far changed what the API server holds ({@link #WRITES}). */
  public long writes() {
    return requests().entrySet().stream()
        .filter(e -> WRITES.contains(e.getKey()))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** Every use so far, sorted. */
  public List<Use> uses() {
    List<Use> all = new ArrayList<>(uses);
    all.sort(Comparator.comparing(Use::line));
    return all;
  }

  /** Writes every use, one {@link Use#line()} per line, after a header naming the RBAC in force. */
  public void write(Path file, String rbacManifest) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder b = new StringBuilder("# rbac: ").append(rbacManifest).append('\n');
    uses().forEach(u -> b.append(u.line()).append('\n'));
    Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
  }

  /** Reads a file {@link #write} wrote: the manifest named in its header, and its uses. */
  public static Recorded read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    String manifest = lines.isEmpty() ? "" : lines.get(0).replaceFirst("^# rbac: ", "");
    List<Use> uses = new ArrayList<>();
    for (String l : lines.subList(Math.min(1, lines.size()), lines.size())) {
      if (!l.isBlank()) {
        uses.add(Use.parse(l));
      }
    }
    return new Recorded(manifest, uses);
  }

  /** What one sandbox recorded. */
  public record Recorded(String rbacManifest, List<Use> uses) {}
}
