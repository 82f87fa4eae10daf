package dev.outbox.jdbc.internal;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.spi.HeaderProvider;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds the {@code headers} column of a row: what the header providers add (trace context,
 * correlation ids), then the event's own headers, which win on a name they share.
 */
final class RowHeaders {

  private final List<HeaderProvider> providers;

  RowHeaders(List<HeaderProvider> providers) {
    this.providers = List.copyOf(providers);
  }

  /** The headers of one event: the providers', then the event's own. */
  Map<String, String> of(DomainEvent event, String aggregateType, String aggregateId) {
    Map<String, String> headers = new TreeMap<>();
    for (HeaderProvider provider : providers) {
      add(headers, provider.headers(event, aggregateType, aggregateId), provider);
    }
    add(headers, event.headers(), event);
    return headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(headers);
  }

  /** The headers as stored in the row. */
  String json(Map<String, String> headers) {
    return HeadersJson.write(headers);
  }

  private static void add(Map<String, String> into, Map<String, String> headers, Object source) {
    if (headers == null) {
      return;
    }
    headers.forEach(
        (key, value) -> {
          if (key == null || value == null) {
            throw new OutboxException(
                source.getClass().getName() + " gave a header with a null name or value");
          }
          into.put(key, value);
        });
  }
}
