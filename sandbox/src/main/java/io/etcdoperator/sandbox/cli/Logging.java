package io.etcdoperator.sandbox.cli;

import static org.slf4j.Logger.ROOT_LOGGER_NAME;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Keeps the terminal for the sandbox's own progress lines: unless a logback configuration file is
 * on the class path, libraries log warnings only and the sandbox informational messages.
 */
public final class Logging {
  private Logging() {}

  public static void quiet() {
    if (Logging.class.getClassLoader().getResource("logback.xml") != null
        || System.getProperty("logback.configurationFile") != null
        || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
      return;
    }
    ctx.getLogger(ROOT_LOGGER_NAME).setLevel(Level.WARN);
    ctx.getLogger("io.etcdoperator").setLevel(Level.INFO);
    Logger versions = ctx.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils");
    versions.setLevel(Level.ERROR);
  }
}
