package io.etcdoperator.operator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What only the members know (database size, raft index, alarms), and the maintenance calls the
 * plugin makes on them (defragment, move leadership), through the API server's {@code pods/proxy}
 * to each member's client port: etcd's JSON gateway ({@code POST /v3/maintenance/...}), with the
 * user's credentials and RBAC ({@code create} on {@code pods/proxy}). The API server presents no
 * client certificate to a pod, so a member that requires one ({@code clientTrustedCASecret}) does
 * not answer this way: the plugin says so and shows what status has.
 */
final class KubectlMembers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_SECONDS = 10;
  private static final long DEFRAGMENT_SECONDS = 120;

  private KubectlMembers() {}

  /**
   * One member's own figures, or why it did not give them.
   *
   * @param dbSize bytes the database file takes (-1: unknown)
   * @param dbSizeInUse bytes of it in use (-1: unknown)
   * @param raftIndex its raft index (-1: unknown)
   * @param alarms the alarms it reports for itself (NOSPACE, CORRUPT)
   * @param error why nothing is known, or null
   */
  record Figures(long dbSize, long dbSizeInUse, long raftIndex, List<String> alarms, String error) {
    static Figures failed(String error) {
      return new Figures(-1, -1, -1, List.of(), error);
    }
  }

  /** Each member of the cluster's status, by name, asked in turn. */
  static Map<String, Figures> figures(KubernetesClient client, EtcdCluster cluster) {
    Map<String, Figures> out = new LinkedHashMap<>();
    List<MemberStatus> members =
        cluster.getStatus() == null || cluster.getStatus().getMembers() == null
            ? List.of()
            : cluster.getStatus().getMembers();
    for (MemberStatus m : members) {
      out.put(m.getName(), figures(client, cluster.getMetadata().getNamespace(), m));
    }
    return out;
  }

  static Figures figures(KubernetesClient client, String namespace, MemberStatus member) {
    try {
      JsonNode status = call(client, namespace, member, "status", "{}", TIMEOUT_SECONDS);
      JsonNode alarms =
          call(client, namespace, member, "alarm", "{\"action\":\"GET\"}", TIMEOUT_SECONDS);
      String id = status.path("header").path("member_id").asText("");
      List<String> own = new ArrayList<>();
      for (JsonNode a : alarms.path("alarms")) {
        if (id.isEmpty() || id.equals(a.path("memberID").asText())) {
          own.add(a.path("alarm").asText());
        }
      }
      return new Figures(
          status.path("dbSize").asLong(-1),
          status.path("dbSizeInUse").asLong(-1),
          status.path("raftIndex").asLong(-1),
          own,
          null);
    } catch (MemberCallException e) {
      return Figures.failed(e.getMessage());
    }
  }

  /** Defragments the member (etcd blocks its reads and writes meanwhile). */
  static void defragment(KubernetesClient client, String namespace, MemberStatus member) {
    call(client, namespace, member, "defragment", "{}", DEFRAGMENT_SECONDS);
  }

  /** Asks the leader {@code leader} to hand leadership to {@code to}. */
  static void moveLeader(
      KubernetesClient client, String namespace, MemberStatus leader, MemberStatus to) {
    String target = Long.toUnsignedString(Long.parseUnsignedLong(to.getId(), 16));
    call(
        client,
        namespace,
        leader,
        "transfer-leadership",
        "{\"targetID\":\"" + target + "\"}",
        TIMEOUT_SECONDS);
  }

  /** A member did not answer a call, or refused it; the message says which and why. */
  static final class MemberCallException extends RuntimeException {
    MemberCallException(String message) {
      super(message);
    }
  }

  /** {@code POST /v3/maintenance/<call>} on the member, through {@code pods/proxy}. */
  private static JsonNode call(
      KubernetesClient client,
      String namespace,
      MemberStatus member,
      String call,
      String body,
      long seconds) {
    String scheme =
        member.getClientURL() != null && member.getClientURL().startsWith("https")
            ? "https"
            : "http";
    String path =
        "api/v1/namespaces/"
            + namespace
            + "/pods/"
            + scheme
            + ":"
            + member.getName()
            + ":2379/proxy/v3/maintenance/"
            + call;
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(client.getConfiguration().getMasterUrl() + path)
            .post("application/json", body)
            .timeout(seconds, TimeUnit.SECONDS)
            .build();
    HttpResponse<String> answer;
    try {
      answer = http.sendAsync(request, String.class).get(seconds + 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MemberCallException(member.getName() + ": interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new MemberCallException(
          member.getName() + ": no answer within " + seconds + " s through the API server");
    }
    String text = answer.body() == null ? "" : answer.body();
    if (answer.code() != 200) {
      String why = text.length() > 300 ? text.substring(0, 300) + "..." : text;
      throw new MemberCallException(
          member.getName()
              + ": HTTP "
              + answer.code()
              + " "
              + why.strip()
              + (scheme.equals("https")
                  ? " (a member that requires a client certificate cannot be asked through the"
                      + " API server)"
                  : ""));
    }
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new MemberCallException(member.getName() + ": not etcd's answer: " + text);
    }
  }
}
