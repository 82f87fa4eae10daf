package dev.outbox.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Checks what a consumer received against what was written: every aggregate's events numbered 0 to
 * n-1, each once, in order. Consumers {@link #record} each delivery as it arrives (thread-safe);
 * the check reports, per aggregate, what is missing, what came twice and what came out of order.
 *
 * <p>A delivery is a duplicate when its message id, or its aggregate and sequence, arrived before.
 * A first delivery of sequence {@code s} is out of order when a higher sequence of the same
 * aggregate arrived before it. Duplicates are not order violations: at-least-once delivery may
 * repeat a message after an outage, and {@link #assertDeliveredInOrder()} tolerates that while
 * {@link #assertDeliveredInOrderExactlyOnce()} does not.
 */
public final class DeliveryCheck {

  private final Map<String, Track> tracks = new LinkedHashMap<>();
  private final Set<String> messageIds = new HashSet<>();
  private final List<String> unexpected = new ArrayList<>();
  private int deliveries;

  private DeliveryCheck(Map<String, Integer> eventsPerAggregate) {
    eventsPerAggregate.forEach((id, count) -> tracks.put(id, new Track(count)));
  }

  /**
   * A check expecting, for each aggregate, the events numbered 0 to count - 1.
   *
   * @param eventsPerAggregate aggregate id to number of events, as {@link
   *     EventWriter.Written#eventsPerAggregate()}
   * @return the check, with nothing received yet
   */
  public static DeliveryCheck expecting(Map<String, Integer> eventsPerAggregate) {
    return new DeliveryCheck(eventsPerAggregate);
  }

  /**
   * Records one delivery, in the order the consumer received it.
   *
   * @param aggregateId the key the message arrived with
   * @param sequence the event's number within its aggregate
   * @param messageId the message id the message arrived with
   */
  public synchronized void record(String aggregateId, long sequence, String messageId) {
    deliveries++;
    Track track = tracks.get(aggregateId);
    if (track == null || sequence < 0 || sequence >= track.expected) {
      unexpected.add(aggregateId + "#" + sequence + " (" + messageId + ")");
      return;
    }
    boolean newId = messageIds.add(messageId);
    if (!newId || track.seen.get((int) sequence)) {
      track.duplicates.add(sequence);
      return;
    }
    track.seen.set((int) sequence);
    if (sequence < track.highest) {
      track.outOfOrder.add(sequence + " after " + track.highest);
    }
    track.highest = Math.max(track.highest, sequence);
  }

  /**
   * Whether every expected event arrived at least once.
   *
   * @return {@code true} when nothing is missing
   */
  public synchronized boolean isComplete() {
    return missing() == 0;
  }

  /**
   * Waits until every expected event arrived or the time is up.
   *
   * @param timeout how long to wait at most
   * @return whether it is complete
   */
  public boolean awaitComplete(Duration timeout) {
    try {
      Awaitility.await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(100))
          .until(this::isComplete);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  /**
   * Deliveries recorded so far, duplicates and unexpected ones included.
   *
   * @return the count
   */
  public synchronized int deliveries() {
    return deliveries;
  }

  /**
   * Expected events not received.
   *
   * @return the count
   */
  public synchronized int missing() {
    return tracks.values().stream().mapToInt(t -> t.expected - t.seen.cardinality()).sum();
  }

  /**
   * Deliveries of an event that had arrived before.
   *
   * @return the count
   */
  public synchronized int duplicates() {
    return tracks.values().stream().mapToInt(t -> t.duplicates.size()).sum();
  }

  /**
   * First deliveries that came after a later event of the same aggregate.
   *
   * @return the count
   */
  public synchronized int orderViolations() {
    return tracks.values().stream().mapToInt(t -> t.outOfOrder.size()).sum();
  }

  /**
   * Deliveries of an unknown aggregate or of a sequence number that was never written.
   *
   * @return the count
   */
  public synchronized int unexpected() {
    return unexpected.size();
  }

  /**
   * One line per aggregate with a problem, then one for unexpected deliveries.
   *
   * @return for example {@code kafka-1a2b3c-0007: missing [41, 42], duplicates [3], out of order
   *     [40 after 43]}
   */
  public synchronized List<String> problems() {
    List<String> lines = new ArrayList<>();
    tracks.forEach(
        (id, track) -> {
          if (track.hasProblem()) {
            lines.add(id + ": " + track.describe());
          }
        });
    if (!unexpected.isEmpty()) {
      lines.add("unexpected: " + first(unexpected));
    }
    return lines;
  }

  /**
   * The result in one line.
   *
   * @return for example {@code 10000 of 10000 events of 100 aggregates received in 10003
   *     deliveries: 0 missing, 3 duplicates, 0 out of order, 0 unexpected}
   */
  public synchronized String summary() {
    int expected = tracks.values().stream().mapToInt(t -> t.expected).sum();
    return String.format(
        "%d of %d events of %d aggregates received in %d deliveries: %d missing, %d duplicates,"
            + " %d out of order, %d unexpected",
        expected - missing(),
        expected,
        tracks.size(),
        deliveries,
        missing(),
        duplicates(),
        orderViolations(),
        unexpected());
  }

  /** Asserts at-least-once delivery in order: nothing missing, out of order or unexpected. */
  public synchronized void assertDeliveredInOrder() {
    assertThat(missing() + orderViolations() + unexpected()).as(report()).isZero();
  }

  /** Asserts exactly-once delivery in order: {@link #assertDeliveredInOrder()} and no duplicate. */
  public synchronized void assertDeliveredInOrderExactlyOnce() {
    assertThat(missing() + orderViolations() + unexpected() + duplicates()).as(report()).isZero();
  }

  private String report() {
    return summary() + "\n  " + String.join("\n  ", first(problems()));
  }

  private static <T> List<T> first(List<T> items) {
    return items.size() <= 20 ? items : items.subList(0, 20);
  }

  private static final class Track {
    final int expected;
    final BitSet seen = new BitSet();
    final List<Long> duplicates = new ArrayList<>();
    final List<String> outOfOrder = new ArrayList<>();
    long highest = -1;

    Track(int expected) {
      this.expected = expected;
    }

    boolean hasProblem() {
      return seen.cardinality() < expected || !duplicates.isEmpty() || !outOfOrder.isEmpty();
    }

    String describe() {
      List<Integer> missing = new ArrayList<>();
      for (int s = seen.nextClearBit(0); s < expected; s = seen.nextClearBit(s + 1)) {
        missing.add(s);
      }
      return "missing "
          + first(missing)
          + ", duplicates "
          + first(duplicates)
          + ", out of order "
          + first(outOfOrder);
    }
  }
}
