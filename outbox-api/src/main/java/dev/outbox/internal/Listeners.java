package dev.outbox.internal;

import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls every registered listener; one that throws is logged and never stops the others. */
final class Listeners implements OutboxListener {

  private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

  private final List<OutboxListener> listeners;

  Listeners(List<OutboxListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  @Override
  public void published(OutboxMessage message, String destination, Instant publishedAt) {
    each(listener -> listener.published(message, destination, publishedAt));
  }

  @Override
  public void failed(
      OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {
    each(listener -> listener.failed(message, attempt, error, nextAttemptAt));
  }

  @Override
  public void deadLettered(OutboxMessage message, int attempts, PublishException error) {
    each(listener -> listener.deadLettered(message, attempts, error));
  }

  @Override
  public void replayed(int count) {
    each(listener -> listener.replayed(count));
  }

  @Override
  public void cleanedUp(int deleted) {
    each(listener -> listener.cleanedUp(deleted));
  }

  @Override
  public void batchCompleted(
      int size, int published, Duration claim, Duration publish, Duration record) {
    each(listener -> listener.batchCompleted(size, published, claim, publish, record));
  }

  private void each(Consumer<OutboxListener> call) {
    for (OutboxListener listener : listeners) {
      try {
        call.accept(listener);
      } catch (RuntimeException | LinkageError e) {
        LOG.warn("Outbox listener {} threw; ignored", listener.getClass().getName(), e);
      }
    }
  }
}
