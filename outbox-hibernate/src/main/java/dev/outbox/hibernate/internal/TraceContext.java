package dev.outbox.hibernate.internal;

import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.spi.HeaderProvider;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether the OpenTelemetry API is on the classpath, without linking to it otherwise, and
 * gives the provider that stores the trace context in every row.
 */
final class TraceContext {

  private static final Logger LOG = LoggerFactory.getLogger(TraceContext.class);
  private static final String API_CLASS = "io.opentelemetry.context.Context";
  private static final String PROVIDER_CLASS =
      TraceContext.class.getPackageName() + ".OpenTelemetryHeaders";

  private TraceContext() {}

  /**
   * The trace-context provider, unless switched off by {@link OutboxSettings#TRACE_CONTEXT} or the
   * OpenTelemetry API is absent.
   */
  static Optional<HeaderProvider> provider(Map<String, Object> settings) {
    Object enabled = settings.get(OutboxSettings.TRACE_CONTEXT);
    if (enabled != null && "false".equalsIgnoreCase(enabled.toString().strip())) {
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
}
