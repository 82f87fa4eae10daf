package dev.outbox.spi;

import dev.outbox.DomainEvent;
import java.util.Map;

/**
 * Adds headers to every event when it is written to the outbox, in the business transaction's
 * thread: trace context ({@code traceparent}, {@code tracestate}), correlation and causation ids,
 * tenant, user. Register it with {@link dev.outbox.OutboxOptions.Builder#headerProvider}.
 *
 * <p>The event's own {@link DomainEvent#headers()} win over a provider's header of the same name.
 *
 * <pre>{@code
 * OutboxOptions.builder()
 *     .headerProvider((event, type, id) -> Map.of("correlation-id", RequestContext.correlationId()))
 * }</pre>
 */
@FunctionalInterface
public interface HeaderProvider {

  /**
   * The headers for one event.
   *
   * @param event the event being written
   * @param aggregateType the type of the aggregate that raised it
   * @param aggregateId the id of that aggregate
   * @return headers to add; empty for none, never {@code null}
   */
  Map<String, String> headers(DomainEvent event, String aggregateType, String aggregateId);
}
