package dev.outbox;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message that failed {@link OutboxOptions#maxAttempts()} times, or failed in a way no retry can
 * fix, and was moved out of the outbox.
 *
 * @param message the message as it was when it was moved, with its failed attempt count
 * @param lastError the last failure, as the processor recorded it
 * @param deadLetteredAt when it was moved
 */
public record DeadLetter(OutboxMessage message, String lastError, Instant deadLetteredAt) {

  /** Checks the required components. */
  public DeadLetter {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
  }

  /**
   * What an operator sees of it in a list (the {@code outbox} command's JSON, the Actuator
   * endpoint): {@code id}, {@code eventType}, {@code aggregateType}, {@code aggregateId}, {@code
   * seq}, {@code attempts}, {@code lastError}, {@code deadLetteredAt}, {@code occurredAt}, {@code
   * createdAt}, in that order; times as ISO-8601 text, absent values as {@code null}.
   *
   * @return field name to value, in order
   */
  public Map<String, Object> summary() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("id", message.id().toString());
    fields.put("eventType", message.eventType());
    fields.put("aggregateType", message.aggregateType());
    fields.put("aggregateId", message.aggregateId());
    fields.put("seq", message.seq());
    fields.put("attempts", message.attempts());
    fields.put("lastError", lastError);
    fields.put("deadLetteredAt", text(deadLetteredAt));
    fields.put("occurredAt", text(message.occurredAt()));
    fields.put("createdAt", text(message.createdAt()));
    return fields;
  }

  /**
   * The {@link #summary()} and then {@code contentType}, {@code headers} and {@code payload}: what
   * an operator needs to decide on one dead letter.
   *
   * @return field name to value, in order
   */
  public Map<String, Object> details() {
    Map<String, Object> fields = summary();
    fields.put("contentType", message.contentType());
    fields.put("headers", new LinkedHashMap<>(message.headers()));
    fields.put("payload", message.payload());
    return fields;
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
