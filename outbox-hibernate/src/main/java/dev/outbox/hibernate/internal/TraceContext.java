package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.HeaderProvider;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether the OpenTelemetry API is on the classpath, without linking to it otherwise, and
 * gives the provider that stores the trace context in every row and the publisher that opens a
 * publish span per message.
 */
public final class TraceContext {

  private static final Logger LOG = LoggerFactory.getLogger(TraceContext.class);
  private static final String API_CLASS = "io.opentelemetry.context.Context";
  private static final String PROVIDER_CLASS =
      TraceContext.class.getPackageName() + ".OpenTelemetryHeaders";
  private static final String SPANS_CLASS = TraceContext.class.getPackageName() + ".PublishSpans";

  private TraceContext() {}

  /**
   * The trace-context provider, unless switched off by {@link OutboxSettings#TRACE_CONTEXT} or the
   * OpenTelemetry API is absent.
   */
  static Optional<HeaderProvider> provider(Map<String, Object> settings) {
    if (!enabled(settings)) {
      return Optional.empty();
    }
    ClassLoader loader = TraceContext.class.getClassLoader();
    try {
      Class.forName(API_CLASS, false, loader);
      return Optional.of(
          (HeaderProvider)
              Class.forName(PROVIDER_CLASS, true, loader).getDeclaredConstructor().newInstance());
    } catch (ClassNotFoundException | LinkageError e) {
      LOG.debug("OpenTelemetry API not on the classpath: no trace context in outbox headers");
      return Optional.empty();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + PROVIDER_CLASS, e);
    }
  }

  /**
   * The publisher with a publish span per message, unless switched off by {@link
   * OutboxSettings#TRACE_CONTEXT} or the OpenTelemetry API is absent; then the publisher itself.
   *
   * @param publisher the adapter's publisher
   * @param settings the persistence unit's settings, for {@link OutboxSettings#OPEN_TELEMETRY}
   */
  public static EventPublisher publisher(EventPublisher publisher, Map<String, Object> settings) {
    if (!enabled(settings)) {
      return publisher;
    }
    Object openTelemetry = settings.get(OutboxSettings.OPEN_TELEMETRY);
    ClassLoader loader = TraceContext.class.getClassLoader();
    try {
      Class<?> api = Class.forName("io.opentelemetry.api.OpenTelemetry", false, loader);
      if (openTelemetry != null && !api.isInstance(openTelemetry)) {
        throw new OutboxException(
            OutboxSettings.OPEN_TELEMETRY
                + " must be an io.opentelemetry.api.OpenTelemetry, but was a "
                + openTelemetry.getClass().getName());
      }
      return (EventPublisher)
          Class.forName(SPANS_CLASS, true, loader)
              .getDeclaredConstructor(EventPublisher.class, Object.class)
              .newInstance(publisher, openTelemetry);
    } catch (ClassNotFoundException | LinkageError e) {
      LOG.debug("OpenTelemetry API not on the classpath: no publish spans");
      return publisher;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + SPANS_CLASS, e);
    }
  }

  private static boolean enabled(Map<String, Object> settings) {
    Object enabled = settings.get(OutboxSettings.TRACE_CONTEXT);
    return enabled == null || !"false".equalsIgnoreCase(enabled.toString().strip());
  }
}
