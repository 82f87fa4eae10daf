package dev.outbox.jdbc.internal;

import dev.outbox.OutboxException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.HeaderProvider;
import java.lang.reflect.Constructor;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenTelemetry trace context of one outbox, or none: the header provider that stores the W3C
 * context of the active span in every row, and the publish span around every message. Finds out
 * whether the OpenTelemetry API is on the classpath without linking to it otherwise: {@link
 * OpenTelemetryHeaders} and {@link PublishSpans} are loaded only when it is.
 */
public final class TraceContext {

  private static final Logger LOG = LoggerFactory.getLogger(TraceContext.class);
  private static final String OPEN_TELEMETRY_CLASS = "io.opentelemetry.api.OpenTelemetry";
  private static final String CONTEXT_CLASS = "io.opentelemetry.context.Context";
  private static final String HEADERS_CLASS =
      TraceContext.class.getPackageName() + ".OpenTelemetryHeaders";
  private static final String SPANS_CLASS = TraceContext.class.getPackageName() + ".PublishSpans";
  private static final TraceContext OFF = new TraceContext(null, null, null);

  private final HeaderProvider headers;
  private final Constructor<?> spans;
  private final Object openTelemetry;

  private TraceContext(HeaderProvider headers, Constructor<?> spans, Object openTelemetry) {
    this.headers = headers;
    this.spans = spans;
    this.openTelemetry = openTelemetry;
  }

  /**
   * No trace context: no headers, no spans, and no OpenTelemetry class loaded.
   *
   * @return the trace context that does nothing
   */
  public static TraceContext off() {
    return OFF;
  }

  /**
   * The trace context when the OpenTelemetry API is on the classpath, else {@link #off()}.
   *
   * @param openTelemetry the {@code io.opentelemetry.api.OpenTelemetry} of the publish spans, or
   *     {@code null} for {@code GlobalOpenTelemetry}, read at the first publish; checked by {@link
   *     #checkOpenTelemetry}
   * @return the trace context
   */
  public static TraceContext detect(Object openTelemetry) {
    ClassLoader loader = TraceContext.class.getClassLoader();
    try {
      Class.forName(CONTEXT_CLASS, false, loader);
      Class.forName(OPEN_TELEMETRY_CLASS, false, loader);
      HeaderProvider headers =
          (HeaderProvider)
              Class.forName(HEADERS_CLASS, true, loader).getDeclaredConstructor().newInstance();
      Constructor<?> spans =
          Class.forName(SPANS_CLASS, true, loader)
              .getDeclaredConstructor(EventPublisher.class, Object.class);
      return new TraceContext(headers, spans, openTelemetry);
    } catch (ClassNotFoundException | LinkageError e) {
      LOG.debug("OpenTelemetry API not on the classpath: no trace context in outbox headers");
      return OFF;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + HEADERS_CLASS + " or " + SPANS_CLASS, e);
    }
  }

  /**
   * Checks that an object given as the OpenTelemetry instance is one.
   *
   * @param openTelemetry the object, not null
   * @throws OutboxException naming its class when it is no {@code
   *     io.opentelemetry.api.OpenTelemetry}, or when the OpenTelemetry API is not on the classpath
   */
  public static void checkOpenTelemetry(Object openTelemetry) {
    Class<?> api;
    try {
      api = Class.forName(OPEN_TELEMETRY_CLASS, false, TraceContext.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new OutboxException(
          "openTelemetry must be an "
              + OPEN_TELEMETRY_CLASS
              + ", but the OpenTelemetry API is not on outbox-jdbc's class path: add"
              + " io.opentelemetry:opentelemetry-api next to it",
          e);
    }
    if (!api.isInstance(openTelemetry)) {
      throw new OutboxException(
          "openTelemetry must be an "
              + OPEN_TELEMETRY_CLASS
              + ", but was a "
              + openTelemetry.getClass().getName());
    }
  }

  /**
   * The provider that stores the trace context of the span active at the write.
   *
   * @return the provider, or empty when off
   */
  public Optional<HeaderProvider> headerProvider() {
    return Optional.ofNullable(headers);
  }

  /**
   * The publisher with a PRODUCER span per message, child of the context stored with it.
   *
   * @param publisher the adapter's publisher
   * @return the publisher in spans, or the publisher itself when off
   */
  public EventPublisher publisher(EventPublisher publisher) {
    if (spans == null) {
      return publisher;
    }
    try {
      return (EventPublisher) spans.newInstance(publisher, openTelemetry);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + SPANS_CLASS, e);
    }
  }

  @Override
  public String toString() {
    return spans == null ? "TraceContext[off]" : "TraceContext[OpenTelemetry]";
  }
}
