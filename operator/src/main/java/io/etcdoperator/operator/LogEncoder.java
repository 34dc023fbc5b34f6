package io.etcdoperator.operator;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * Text lines by default; one JSON object per line when asked ({@link #setJson}). Both name the
 * cluster a line is about: the text pattern shows {@code [namespace/name]} from the framework's
 * MDC, JSON carries the MDC as fields.
 */
public final class LogEncoder extends EncoderBase<ILoggingEvent> {
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%X{resource.namespace:-}/%X{resource.name:-}]"
          + " %logger{20} - %msg%n";

  private Encoder<ILoggingEvent> delegate;
  private boolean json;

  /**
   * JSON lines rather than text ({@link LogConfigurator} reads {@code LOG_FORMAT}); before {@link
   * #start}.
   */
  public void setJson(boolean json) {
    this.json = json;
  }

  @Override
  public void start() {
    if (json) {
      JsonEncoder json = new JsonEncoder();
      json.setWithSequenceNumber(false);
      json.setWithNanoseconds(false);
      json.setWithContext(false);
      delegate = json;
    } else {
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setPattern(PATTERN);
      delegate = text;
    }
    delegate.setContext(getContext());
    delegate.start();
    super.start();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }

  @Override
  public void stop() {
    delegate.stop();
    super.stop();
  }
}
