package io.etcdoperator.sandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.sandbox.OperatorLauncher;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The {@code sandbox} command relaunches itself in a JVM that resolves pod names: every option must
 * reach that JVM (once, {@code --nodes} and {@code --no-operator} did not, and a sandbox asked for
 * 5 nodes ran 3).
 */
class SandboxCommandTest {
  @Test
  void theRelaunchedJvmGetsEveryOption() {
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    SandboxCommand command = new SandboxCommand(OperatorLauncher.NONE, none, none);
    new CommandLine(command)
        .parseArgs(
            "-f",
            "a.yaml",
            "--dir",
            "/tmp/x",
            "--until-ready",
            "--timeout",
            "90s",
            "--nodes",
            "5",
            "--object-store",
            "--no-operator");
    List<String> relaunched = command.rawArgs();
    SandboxCommand again = new SandboxCommand(OperatorLauncher.NONE, none, none);
    new CommandLine(again).parseArgs(relaunched.toArray(String[]::new));
    assertThat(again.rawArgs()).isEqualTo(relaunched);
    assertThat(relaunched)
        .containsSubsequence("--nodes", "5")
        .contains("--no-operator", "--object-store", "--until-ready");
    assertThat(again.nodes).isEqualTo(5);
    assertThat(again.noOperator).isTrue();
  }
}
