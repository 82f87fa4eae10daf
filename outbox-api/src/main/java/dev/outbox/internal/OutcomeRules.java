package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.PublishResult;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** Decides what a publish result means for a message: published, retried later, or given up. */
final class OutcomeRules {

  static final String MDC_MESSAGE_ID = "outbox.messageId";
  static final int MAX_ERROR_LENGTH = 2_000;

  private static final Logger LOG = LoggerFactory.getLogger(OutcomeRules.class);

  private final OutboxOptions options;

  OutcomeRules(OutboxOptions options) {
    this.options = options;
  }

  /**
   * The outcome of one message.
   *
   * @param notBefore the earliest next attempt, whatever the retry policy says
   */
  Outcome decide(OutboxMessage message, PublishResult result, Instant now, Instant notBefore) {
    try (MDC.MDCCloseable ignored = MDC.putCloseable(MDC_MESSAGE_ID, message.id().toString())) {
      if (result.isPublished()) {
        LOG.debug("Published {} {}", message.eventType(), message.id());
        return new Outcome.Published(message.id(), now);
      }
      PublishException failure = result.failure();
      String error = describe(failure);
      if (failure.isBrokerFault()) {
        // Not the message's fault: its attempts stay as they are, and it waits for the broker.
        LOG.debug("Broker unavailable for {}, no attempt counted: {}", message.id(), error);
        return new Outcome.Held(
            message.id(),
            message.attempts(),
            shorten(AggregateCounts.BROKER_UNAVAILABLE + error),
            later(now, notBefore));
      }
      int attempts = message.attempts() + 1;
      if (!failure.isRetryable() || attempts >= options.maxAttempts()) {
        LOG.error(
            "Dead-lettered {} {} of {}/{} after {} attempt(s): {}",
            message.eventType(),
            message.id(),
            message.aggregateType(),
            message.aggregateId(),
            attempts,
            error);
        return new Outcome.DeadLettered(message.id(), attempts, error, now);
      }
      Instant next = now.plus(options.retryPolicy().delayAfter(attempts));
      if (next.isBefore(notBefore)) {
        next = notBefore;
      }
      LOG.debug("Attempt {} of {} failed, next at {}: {}", attempts, message.id(), next, error);
      return new Outcome.Failed(message.id(), attempts, error, next);
    }
  }

  private static Instant later(Instant one, Instant other) {
    return one.isAfter(other) ? one : other;
  }

  static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = failure; t != null && text.length() < MAX_ERROR_LENGTH; t = t.getCause()) {
      if (text.length() > 0) {
        text.append(" <- ");
      }
      text.append(t.getClass().getName()).append(": ").append(t.getMessage());
      if (t.getCause() == t) {
        break;
      }
    }
    return shorten(text.toString());
  }

  private static String shorten(String error) {
    return error.length() <= MAX_ERROR_LENGTH ? error : error.substring(0, MAX_ERROR_LENGTH);
  }
}
