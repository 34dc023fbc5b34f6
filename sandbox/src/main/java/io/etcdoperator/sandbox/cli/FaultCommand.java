package io.etcdoperator.sandbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdoperator.sandbox.Kubeconfig;
import io.etcdoperator.sandbox.api.SelfSigned;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code etcd-operator sandbox fault ...}: injects a fault into a running sandbox, found through
 * the kubeconfig in its state directory.
 */
@Command(
    name = "fault",
    mixinStandardHelpOptions = true,
    description = {
      "Injects a fault into a running sandbox:",
      "  kill POD      SIGKILL the container's processes (restartPolicy decides what follows)",
      "  delete POD    delete the pod through the API (it comes back with its name and claims)",
      "  wipe POD      empty the pod's persistent volumes (its containers restart on empty disks)",
      "  freeze POD    SIGSTOP every process of the pod (a hung or partitioned node)",
      "  thaw POD      SIGCONT them again",
      "  partition POD make the pod's etcd ports unreachable from the operator only (its peers",
      "                and the kubelet's probes still reach it): its calls time out",
      "  heal POD      end the partition",
      "  node-down NODE    freeze every pod's processes on the node and stop its kubelet",
      "                    (no heartbeats: NotReady and tainted unreachable after 40 s)",
      "  node-up NODE      thaw them; the kubelet acts again (pods deleted meanwhile go)",
      "  node-delete NODE  kill the node's processes, delete the Node and its local volumes",
      "  operator stop|start   stop or start the operator inside the sandbox"
    })
final class FaultCommand implements Callable<Integer> {
  @Parameters(
      index = "0",
      paramLabel = "ACTION",
      description =
          "kill, delete, wipe, freeze, thaw, partition, heal, node-down, node-up, node-delete or"
              + " operator")
  String action;

  @Parameters(
      index = "1",
      paramLabel = "TARGET",
      description = "a pod name, a node name after node-*, or stop/start after operator")
  String target;

  @Option(
      names = {"-n", "--namespace"},
      defaultValue = "default",
      description = "Namespace of the pod (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = {"-c", "--container"},
      description = "Container to kill (default: the pod's first).")
  String container;

  @Option(
      names = "--dir",
      defaultValue = ".sandbox",
      paramLabel = "DIR",
      description = "State directory of the running sandbox (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Override
  public Integer call() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode body = mapper.createObjectNode();
    switch (action) {
      case "kill", "delete", "wipe", "freeze", "thaw", "partition", "heal" -> {
        body.put("action", action);
        body.put("namespace", namespace);
        body.put("pod", target);
        if (container != null) {
          body.put("container", container);
        }
      }
      case "node-down", "node-up", "node-delete" -> {
        body.put("action", action);
        body.put("node", target);
      }
      case "operator" -> {
        if (!target.equals("stop") && !target.equals("start")) {
          System.err.println("fault: operator takes stop or start, not " + target);
          return 2;
        }
        body.put("action", "operator-" + target);
      }
      default -> {
        System.err.println(
            "fault: unknown action "
                + action
                + " (kill, delete, wipe, freeze, thaw, partition, heal, node-down, node-up,"
                + " node-delete, operator)");
        return 2;
      }
    }
    Path kubeconfig = dir.resolve("kubeconfig");
    if (!Files.isReadable(kubeconfig)) {
      System.err.println(
          "fault: no sandbox in "
              + dir.toAbsolutePath()
              + " (no kubeconfig there); start one with: etcd-operator sandbox --dir "
              + dir);
      return 2;
    }
    String server = Kubeconfig.server(kubeconfig);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server + "/sandbox/v1/fault"))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + Kubeconfig.token(kubeconfig))
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    try {
      HttpResponse<String> r =
          SelfSigned.httpClient(Duration.ofSeconds(5))
              .send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode answer = mapper.readTree(r.body());
      if (r.statusCode() == 200) {
        System.out.println(answer.path("message").asText());
        return 0;
      }
      System.err.println("fault: " + answer.path("message").asText(r.body()));
      return 1;
    } catch (ConnectException e) {
      System.err.println(
          "fault: the sandbox of "
              + dir.toAbsolutePath()
              + " is not running ("
              + server
              + " refused the connection).");
      return 2;
    }
  }
}
