package dev.outbox.samples.payments;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the consumer checks: each message id once (a repeated id is a duplicate, which at-least-once
 * delivery allows), and per aggregate (payment or merchant) the events' {@code sequence} one after
 * the other, starting at 1 (anything else is out of order).
 */
public final class DeliveryTracker implements Consumer<ReceivedEvent> {

  private final ObjectMapper json = new ObjectMapper();
  private final Set<String> seen = new HashSet<>();
  private final Map<String, Integer> lastSequence = new HashMap<>();
  private long duplicates;
  private long outOfOrder;

  @Override
  public synchronized void accept(ReceivedEvent event) {
    if (event.messageId() == null || !seen.add(event.messageId())) {
      duplicates += event.messageId() == null ? 0 : 1;
      return;
    }
    String aggregate = event.aggregateType() + "/" + event.aggregateId();
    int sequence = sequence(event.payload());
    int last = lastSequence.getOrDefault(aggregate, 0);
    if (sequence != last + 1) {
      outOfOrder++;
    }
    lastSequence.put(aggregate, Math.max(last, sequence));
  }

  private int sequence(String payload) {
    try {
      return json.readTree(payload).path("sequence").asInt(-1);
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Distinct events received so far.
   *
   * @return the count of distinct message ids
   */
  public synchronized long received() {
    return seen.size();
  }

  /**
   * Messages received again with an id already seen.
   *
   * @return the count
   */
  public synchronized long duplicates() {
    return duplicates;
  }

  /**
   * Events that did not follow their aggregate's previous one.
   *
   * @return the count
   */
  public synchronized long outOfOrder() {
    return outOfOrder;
  }

  /**
   * The highest sequence received for an aggregate.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @return the sequence, 0 when nothing arrived
   */
  public synchronized int lastSequence(String aggregateType, String aggregateId) {
    return lastSequence.getOrDefault(aggregateType + "/" + aggregateId, 0);
  }
}
