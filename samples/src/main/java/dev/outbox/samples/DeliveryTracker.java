package dev.outbox.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.samples.brokers.ReceivedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the consumer checks: each message id once (a repeated id is a duplicate, which at-least-once
 * delivery allows), and per order the events' {@code sequence} one after the other (anything else
 * is out of order). Latency is {@code receivedAt - outbox-occurred-at}.
 */
final class DeliveryTracker implements Consumer<ReceivedEvent> {

  private final ObjectMapper json = new ObjectMapper();
  private final Set<String> seen = new HashSet<>();
  private final Map<String, Integer> lastSequence = new HashMap<>();
  private final List<Long> latencyMicros = new ArrayList<>();
  private long duplicates;
  private long outOfOrder;

  @Override
  public synchronized void accept(ReceivedEvent event) {
    if (event.messageId() == null || !seen.add(event.messageId())) {
      duplicates += event.messageId() == null ? 0 : 1;
      return;
    }
    int sequence = sequence(event.payload());
    int last = lastSequence.getOrDefault(event.aggregateId(), 0);
    if (sequence != last + 1) {
      outOfOrder++;
    }
    lastSequence.put(event.aggregateId(), Math.max(last, sequence));
    if (event.occurredAt() != null) {
      latencyMicros.add(Duration.between(event.occurredAt(), event.receivedAt()).toNanos() / 1_000);
    }
  }

  private int sequence(String payload) {
    try {
      JsonNode node = json.readTree(payload);
      return node.path("sequence").asInt(-1);
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Distinct events received so far.
   *
   * @return the count of distinct message ids
   */
  synchronized long received() {
    return seen.size();
  }

  /**
   * The result so far.
   *
   * @param expected how many events were committed
   * @return the summary
   */
  synchronized Summary summary(long expected) {
    List<Long> sorted = new ArrayList<>(latencyMicros);
    sorted.sort(null);
    return new Summary(
        seen.size(),
        expected,
        duplicates,
        outOfOrder,
        percentile(sorted, 50),
        percentile(sorted, 99));
  }

  private static double percentile(List<Long> sorted, int percent) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(index, 0)) / 1_000.0;
  }
}
