package dev.outbox.jdbc.internal;

import dev.outbox.DomainEvent;
import dev.outbox.spi.HeaderProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;

/**
 * Adds the W3C trace context of the span active when the event is written ({@code traceparent},
 * {@code tracestate}), so that a consumer's span continues the producer's trace. Loaded only when
 * the OpenTelemetry API is on the classpath; see {@link TraceContext}.
 */
final class OpenTelemetryHeaders implements HeaderProvider {

  @Override
  public Map<String, String> headers(DomainEvent event, String aggregateType, String aggregateId) {
    Map<String, String> carrier = new HashMap<>(2);
    W3CTraceContextPropagator.getInstance()
        .inject(Context.current(), carrier, (into, key, value) -> into.put(key, value));
    return carrier;
  }
}
