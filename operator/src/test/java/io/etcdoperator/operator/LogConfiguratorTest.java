package io.etcdoperator.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The operator's logging as {@link LogConfigurator} sets it up, on a logger context of the test's
 * own (the tests' logback-test.xml configures the shared one), writing to a captured stderr.
 */
class LogConfiguratorTest {

  private static String logged(
      Map<String, String> env, java.util.function.Consumer<LoggerContext> log) {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(MDC.getMDCAdapter());
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      ExecutionStatus status = new LogConfigurator(env::get, false).configure(context);
      assertThat(status).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
      log.accept(context);
    } finally {
      context.stop();
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void textLinesToStderrNamingTheClusterAndQuietLibraries() {
    String out =
        logged(
            Map.of(),
            c -> {
              MDC.put("resource.namespace", "default");
              MDC.put("resource.name", "test");
              try {
                c.getLogger("io.etcdoperator.operator.X").info("member {} joined", 2);
              } finally {
                MDC.clear();
              }
              c.getLogger("io.etcdoperator.operator.X").debug("not at INFO");
              c.getLogger("io.grpc.internal.Y").info("library chatter");
              c.getLogger("io.grpc.internal.Y").warn("library warning");
              c.getLogger("io.grpc.internal.ManagedChannelImpl").warn("name lookup failed");
            });
    assertThat(out.lines())
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).matches(".*INFO  \\[default/test\\] .*X - member 2 joined"))
        .anySatisfy(l -> assertThat(l).contains("WARN", "library warning"));
  }

  @Test
  void logLevelAndJsonFromTheEnvironment() {
    String out =
        logged(
            Map.of("LOG_LEVEL", "DEBUG", "LOG_FORMAT", "json"),
            c -> c.getLogger(Logger.ROOT_LOGGER_NAME).debug("seen at DEBUG"));
    assertThat(out.lines())
        .singleElement()
        .satisfies(
            l -> assertThat(l).startsWith("{").contains("\"level\":\"DEBUG\"", "seen at DEBUG"));
  }

  @Test
  void aConfigurationFileWins() {
    LoggerContext context = new LoggerContext();
    assertThat(new LogConfigurator(k -> null, true).configure(context))
        .isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext())
        .isFalse();
  }
}
