package io.etcdoperator.sandbox.cli;

import picocli.CommandLine;

/** Runs {@code sandbox} on its own: the entry point of the JVM {@link Relauncher} starts. */
public final class SandboxMain {
  private SandboxMain() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new SandboxCommand()).execute(args));
  }
}
