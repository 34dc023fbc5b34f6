package io.etcdoperator.operator.cli;

import io.etcdoperator.api.v1alpha1.EtcdCluster;
import io.etcdoperator.api.v1alpha1.MemberStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kubectl etcd defrag} and {@code move-leader}: maintenance calls on the members themselves,
 * through the API server's {@code pods/proxy} ({@link KubectlMembers}), each only while the
 * operator's status says every member is a healthy voter, so that a member busy defragmenting (etcd
 * serves it nothing meanwhile) or a leader handing over costs no quorum.
 *
 * <p>Defragmentation goes one member at a time, followers first and the leader last (as the
 * operator's own schedule does), reading the cluster again before each; it stops at the first
 * member that fails. Moving leadership asks the current leader to hand over to the named member,
 * then waits (up to 30 s) until the operator's status names the new leader.
 */
final class KubectlMaintenance {
  private KubectlMaintenance() {}

  /** Why the cluster is not fit for maintenance now, or null when every member is healthy. */
  static String unfit(EtcdCluster c) {
    List<MemberStatus> members =
        c.getStatus() == null || c.getStatus().getMembers() == null
            ? List.of()
            : c.getStatus().getMembers();
    if (members.isEmpty()) {
      return "etcdcluster " + c.getMetadata().getName() + " has no members in its status yet";
    }
    List<String> unhealthy =
        members.stream()
            .filter(
                m ->
                    !Boolean.TRUE.equals(m.getHealthy()) || !MemberStatus.VOTER.equals(m.getRole()))
            .map(MemberStatus::getName)
            .toList();
    return unhealthy.isEmpty()
        ? null
        : "etcdcluster "
            + c.getMetadata().getName()
            + ": "
            + String.join(", ", unhealthy)
            + " not a healthy voter (kubectl etcd status "
            + c.getMetadata().getName()
            + " says why); try again once every member is";
  }

  /** The order of defragmentation: followers by name, then the leader; or only {@code member}. */
  static List<MemberStatus> defragmentOrder(EtcdCluster c, String member) {
    List<MemberStatus> order = new ArrayList<>();
    List<MemberStatus> members = c.getStatus().getMembers();
    members.stream()
        .filter(m -> !Boolean.TRUE.equals(m.getLeader()))
        .sorted(Comparator.comparing(MemberStatus::getName))
        .forEach(order::add);
    members.stream().filter(m -> Boolean.TRUE.equals(m.getLeader())).forEach(order::add);
    if (member == null) {
      return order;
    }
    List<MemberStatus> one = order.stream().filter(m -> member.equals(m.getName())).toList();
    if (one.isEmpty()) {
      throw new IllegalStateException(
          "--member "
              + member
              + ": no such member of etcdcluster "
              + c.getMetadata().getName()
              + " (kubectl etcd status lists them)");
    }
    return one;
  }

  @Command(
      name = "defrag",
      mixinStandardHelpOptions = true,
      description =
          "Defragment the members one at a time, followers first, the leader last (--member: only"
              + " that one), each only while every member is a healthy voter; prints each size"
              + " before and after.")
  static final class DefragCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String name;

    @Option(names = "--member", description = "Only this member (a pod name).")
    String member;

    @Override
    public Integer call() throws IOException {
      try (KubernetesClient client = parent.client()) {
        EtcdCluster c = KubectlEtcd.cluster(client, name);
        String ns = c.getMetadata().getNamespace();
        for (MemberStatus m : defragmentOrder(c, member)) {
          String why = unfit(KubectlEtcd.cluster(client, name));
          if (why != null) {
            throw new IllegalStateException(why);
          }
          long before = KubectlMembers.figures(client, ns, m).dbSize();
          KubectlMembers.defragment(client, ns, m);
          KubectlMembers.Figures after = KubectlMembers.figures(client, ns, m);
          parent
              .out()
              .println(
                  m.getName()
                      + " defragmented: "
                      + KubectlTables.bytes(before)
                      + " -> "
                      + KubectlTables.bytes(after.dbSize())
                      + " ("
                      + KubectlTables.bytes(after.dbSizeInUse())
                      + " in use)");
          parent.out().flush();
        }
        return 0;
      }
    }
  }

  @Command(
      name = "move-leader",
      mixinStandardHelpOptions = true,
      description =
          "Hand leadership to another member (while every member is a healthy voter), and wait"
              + " until the operator's status names it.")
  static final class MoveLeaderCommand implements Callable<Integer> {
    @ParentCommand KubectlEtcd parent;

    @Parameters(paramLabel = "NAME", description = "The EtcdCluster.")
    String name;

    @Option(names = "--to", required = true, description = "The member to lead (a pod name).")
    String to;

    @Override
    public Integer call() throws IOException, InterruptedException {
      try (KubernetesClient client = parent.client()) {
        EtcdCluster c = KubectlEtcd.cluster(client, name);
        String why = unfit(c);
        if (why != null) {
          throw new IllegalStateException(why);
        }
        MemberStatus target =
            c.getStatus().getMembers().stream()
                .filter(m -> to.equals(m.getName()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "--to "
                                + to
                                + ": no such member of etcdcluster "
                                + name
                                + " (kubectl etcd status lists them)"));
        MemberStatus leader =
            KubectlEtcd.leader(c)
                .orElseThrow(
                    () -> new IllegalStateException("etcdcluster " + name + " has no leader now"));
        if (leader.getName().equals(to)) {
          parent.out().println(to + " leads already");
          return 0;
        }
        KubectlMembers.moveLeader(client, c.getMetadata().getNamespace(), leader, target);
        KubectlBackups.await(
            () -> KubectlEtcd.cluster(client, name),
            x -> x.getStatus() != null && to.equals(x.getStatus().getLeader()),
            x -> false,
            Duration.ofSeconds(30),
            "the status of etcdcluster " + name + " to name " + to + " its leader");
        parent.out().println("leadership moved from " + leader.getName() + " to " + to);
        return 0;
      }
    }
  }
}
