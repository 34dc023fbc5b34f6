package io.etcdoperator.sandbox.cli;

import io.etcdoperator.operator.cli.SubcommandProvider;

/** Adds {@code sandbox} to the {@code etcd-operator} command line. */
public final class SandboxSubcommandProvider implements SubcommandProvider {
  @Override
  public Object command() {
    return new SandboxCommand();
  }
}
