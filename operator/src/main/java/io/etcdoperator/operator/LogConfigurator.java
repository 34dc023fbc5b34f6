package io.etcdoperator.operator;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.joran.spi.ConsoleTarget;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;

/**
 * The operator's logging, set up in code (found by logback as a service): logs go to stderr (stdout
 * is for command output: render, sandbox progress), as text lines or, with {@code LOG_FORMAT=json},
 * one JSON object per line ({@link LogEncoder}); {@code LOG_LEVEL} sets the root level (default
 * INFO). Libraries that are chatty at INFO log warnings only.
 *
 * <p>In code rather than in a {@code logback.xml}: reading XML loads logback's configuration model
 * and the JDK's XML parser, about 600 classes (4 MiB of the operator's memory, for good) for a
 * dozen lines. A configuration file still wins when there is one: {@code
 * -Dlogback.configurationFile} or a {@code logback-test.xml}/{@code logback.xml} on the class path
 * (the tests' own) is read as logback always does.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  /** Loggers quieter than the root: what libraries say at INFO is noise in an operator's log. */
  static final Map<String, Level> LEVELS =
      Map.of(
          "io.fabric8.kubernetes.client.informers", Level.WARN,
          "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", Level.ERROR,
          "io.javaoperatorsdk.operator", Level.INFO,
          "io.grpc", Level.WARN,
          // gRPC reports every failed name lookup of a member without a pod; the probe reports it
          // once.
          "io.grpc.internal.ManagedChannelImpl", Level.ERROR,
          "io.fabric8.mockwebserver", Level.WARN,
          "io.netty", Level.WARN);

  private final UnaryOperator<String> env;
  private final boolean fileGiven;

  /** As logback finds it: the process's environment; a configuration file given wins. */
  public LogConfigurator() {
    this(System::getenv, configurationFileGiven());
  }

  /** With another environment, and whether a configuration file is given (tests). */
  LogConfigurator(UnaryOperator<String> env, boolean fileGiven) {
    this.env = env;
    this.fileGiven = fileGiven;
  }

  private static boolean configurationFileGiven() {
    ClassLoader loader = LogConfigurator.class.getClassLoader();
    return System.getProperty("logback.configurationFile") != null
        || loader.getResource("logback-test.xml") != null
        || loader.getResource("logback.xml") != null;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (fileGiven) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    LevelChangePropagator jul = new LevelChangePropagator();
    jul.setContext(context);
    jul.setResetJUL(true);
    context.addListener(jul);
    jul.start();

    LogEncoder encoder = new LogEncoder();
    encoder.setJson("json".equalsIgnoreCase(env.apply("LOG_FORMAT")));
    encoder.setContext(context);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget(ConsoleTarget.SystemErr.getName());
    stderr.setEncoder(encoder);
    stderr.start();

    LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(env.apply("LOG_LEVEL"), Level.INFO));
    root.addAppender(stderr);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
