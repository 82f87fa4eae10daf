package dev.outbox;

import java.time.Duration;
import java.time.Instant;

/**
 * Callbacks on what the outbox does, for metrics, alerts and tests. Every method does nothing by
 * default; implement the ones you need and register the listener with {@link
 * OutboxOptions.Builder#listener(OutboxListener)}.
 *
 * <p>Callbacks run on the processor's thread, after the outcome is recorded: keep them quick. An
 * exception a listener throws is logged and ignored; it never stops publishing.
 */
public interface OutboxListener {

  /**
   * The broker acknowledged a message and the outbox recorded it as published.
   *
   * @param message the message
   * @param destination where it went, or {@code null} when the publisher does not say
   * @param publishedAt when it was recorded; {@code publishedAt - message.createdAt()} is the delay
   *     from the commit that wrote it to the broker's acknowledgement
   */
  default void published(OutboxMessage message, String destination, Instant publishedAt) {}

  /**
   * An attempt failed; the message will be tried again.
   *
   * @param message the message, with the attempts before this one
   * @param attempt the number of the attempt that failed (1 for the first)
   * @param error why
   * @param nextAttemptAt when it is tried again
   */
  default void failed(
      OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {}

  /**
   * A message was given up and moved to the dead letters.
   *
   * @param message the message
   * @param attempts how many attempts were made
   * @param error the last failure
   */
  default void deadLettered(OutboxMessage message, int attempts, PublishException error) {}

  /**
   * Dead letters were put back into the outbox.
   *
   * @param count how many
   */
  default void replayed(int count) {}

  /**
   * Cleanup ran.
   *
   * @param deleted how many published messages it deleted
   */
  default void cleanedUp(int deleted) {}

  /**
   * The processor recorded the outcomes of a batch. The processor records a batch in the same
   * transaction that claims a later one, while another batch is published: {@code record} is that
   * whole transaction, and the batch it claims reports the same transaction as its {@code claim}.
   *
   * @param size how many messages the batch held (claimed, and handed over at commit)
   * @param published how many of them were acknowledged
   * @param claim how long the transaction that claimed the batch took; zero for messages handed
   *     over at commit
   * @param publish how long publishing the batch took
   * @param record how long the transaction that recorded the outcomes took
   */
  default void batchCompleted(
      int size, int published, Duration claim, Duration publish, Duration record) {}
}
