package io.etcdoperator.product;

import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** Logs one line as the operator does, for {@link ProductJarIT} to run on the product jar. */
public final class LogLine {
  private LogLine() {}

  public static void main(String[] args) {
    MDC.put("resource.namespace", "default");
    MDC.put("resource.name", "test");
    LoggerFactory.getLogger("io.etcdoperator.operator.Probe").info("member {} joined", 2);
    LoggerFactory.getLogger("io.etcdoperator.operator.Probe").debug("seen at DEBUG");
  }
}
