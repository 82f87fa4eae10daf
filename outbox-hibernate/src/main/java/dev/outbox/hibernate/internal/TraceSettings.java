package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.jdbc.JdbcOutbox;
import java.util.Map;

/**
 * Passes the persistence unit's trace settings ({@link OutboxSettings#TRACE_CONTEXT}, {@link
 * OutboxSettings#OPEN_TELEMETRY}) on to the {@link JdbcOutbox} that stores the trace context in
 * every row and opens the publish spans.
 */
final class TraceSettings {

  private TraceSettings() {}

  /**
   * Sets the builder's trace options from the settings.
   *
   * @param settings the persistence unit's settings
   * @param builder the builder of the persistence unit's {@link JdbcOutbox}
   * @throws OutboxException naming {@link OutboxSettings#OPEN_TELEMETRY} when it is no {@code
   *     io.opentelemetry.api.OpenTelemetry}
   */
  static void apply(Map<String, Object> settings, JdbcOutbox.Builder builder) {
    Object enabled = settings.get(OutboxSettings.TRACE_CONTEXT);
    if (enabled != null && "false".equalsIgnoreCase(enabled.toString().strip())) {
      builder.traceContext(false);
      return;
    }
    Object openTelemetry = settings.get(OutboxSettings.OPEN_TELEMETRY);
    if (openTelemetry == null) {
      return;
    }
    try {
      builder.openTelemetry(openTelemetry);
    } catch (OutboxException e) {
      throw new OutboxException(
          "The setting " + OutboxSettings.OPEN_TELEMETRY + " is wrong: " + e.getMessage(), e);
    }
  }
}
