package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.samples.brokers.ReceivedEvent;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DeliveryTrackerTest {

  private static final Instant COMMITTED = Instant.parse("2025-01-31T10:15:30Z");

  private final DeliveryTracker tracker = new DeliveryTracker();

  @Test
  void eventsOfEachOrderInSequencePass() {
    receive("m1", "o1", 1, 4);
    receive("m2", "o2", 1, 6);
    receive("m3", "o1", 2, 10);

    Summary summary = tracker.summary(3);

    assertThat(summary.ok()).isTrue();
    assertThat(summary.line())
        .isEqualTo(
            "summary: received 3/3 events, 0 duplicates, 0 out of order,"
                + " latency p50 6.0 ms p99 10.0 ms");
  }

  @Test
  void aRepeatedMessageIdIsADuplicateNotAFailure() {
    receive("m1", "o1", 1, 1);
    receive("m1", "o1", 1, 1);

    Summary summary = tracker.summary(1);

    assertThat(summary.duplicates()).isEqualTo(1);
    assertThat(summary.received()).isEqualTo(1);
    assertThat(summary.ok()).isTrue();
  }

  @Test
  void aLaterEventBeforeAnEarlierOneIsOutOfOrder() {
    receive("m2", "o1", 2, 1);
    receive("m1", "o1", 1, 1);

    Summary summary = tracker.summary(2);

    assertThat(summary.outOfOrder()).isEqualTo(2);
    assertThat(summary.ok()).isFalse();
  }

  @Test
  void aMissingEventFailsTheRun() {
    receive("m1", "o1", 1, 1);

    assertThat(tracker.summary(2).ok()).isFalse();
  }

  private void receive(String id, String order, int sequence, int latencyMillis) {
    tracker.accept(
        new ReceivedEvent(
            id,
            order,
            "order.placed",
            COMMITTED,
            "{\"orderId\":\"" + order + "\",\"sequence\":" + sequence + "}",
            COMMITTED.plusMillis(latencyMillis)));
  }
}
