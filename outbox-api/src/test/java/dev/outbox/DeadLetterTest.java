package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What operators see of a dead letter, the same from the command line and from Actuator. */
class DeadLetterTest {

  private static final Instant OCCURRED = Instant.parse("2026-11-26T08:00:00Z");
  private static final Instant CREATED = Instant.parse("2026-11-26T08:00:01Z");
  private static final Instant MOVED = Instant.parse("2026-11-26T09:00:00Z");

  private final UUID id = UUID.randomUUID();
  private final DeadLetter letter =
      new DeadLetter(
          new OutboxMessage(
              id,
              7,
              "Order",
              "o-1",
              "order.placed",
              OutboxMessage.JSON,
              "{\"total\":12}",
              Map.of("tenant", "acme"),
              OCCURRED,
              CREATED,
              3),
          "broker refused it",
          MOVED);

  @Test
  void theSummaryNamesTheMessageAndWhyItStopped() {
    assertThat(letter.summary())
        .containsExactly(
            Map.entry("id", id.toString()),
            Map.entry("eventType", "order.placed"),
            Map.entry("aggregateType", "Order"),
            Map.entry("aggregateId", "o-1"),
            Map.entry("seq", 7L),
            Map.entry("attempts", 3),
            Map.entry("lastError", "broker refused it"),
            Map.entry("deadLetteredAt", "2026-11-26T09:00:00Z"),
            Map.entry("occurredAt", "2026-11-26T08:00:00Z"),
            Map.entry("createdAt", "2026-11-26T08:00:01Z"));
  }

  @Test
  void theDetailsAddContentTypeHeadersAndPayload() {
    assertThat(letter.details())
        .containsAllEntriesOf(letter.summary())
        .containsEntry("contentType", "application/json")
        .containsEntry("headers", Map.of("tenant", "acme"))
        .containsEntry("payload", "{\"total\":12}")
        .hasSize(13);
  }
}
