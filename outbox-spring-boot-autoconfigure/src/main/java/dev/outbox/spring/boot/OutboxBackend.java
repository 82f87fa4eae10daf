package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.util.Collections;
import java.util.List;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * What the auto-configured outbox runs on: the JPA persistence unit ({@link JpaOutboxBackend}) or
 * the {@code DataSource} alone ({@link JdbcOutboxBackend}). Everything else (the processor, its
 * lifecycle, health, metrics, endpoint) is the same on both.
 */
interface OutboxBackend extends OutboxEvents {

  /** The store the processor claims and records on. */
  OutboxStore store();

  /** The processor publishing through a broker's publisher, not started. */
  Outbox outbox(EventPublisher publisher, OutboxOptions options);

  /** The outbox of CDC mode: cleanup, health and dead letters; the connector delivers. */
  Outbox connectorDelivers();

  /**
   * Sends the events of one aggregate, in order, in the current transaction.
   *
   * @throws OutboxException when no transaction is active or the events cannot be written
   */
  void send(String aggregateType, String aggregateId, List<? extends DomainEvent> events);

  /**
   * Whether the flush of this backend harvests the entities of a class itself, so that Spring Data
   * JDBC's callback must leave them alone.
   */
  boolean harvests(Class<?> entityType);

  @Override
  default void send(String aggregateType, String aggregateId, DomainEvent event) {
    send(aggregateType, aggregateId, Collections.singletonList(event));
  }

  /**
   * Checks that a Spring transaction is active on this thread.
   *
   * @throws OutboxException naming the problem and the fix
   */
  static void requireTransaction(int events) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new OutboxException(
          "Cannot send "
              + events
              + " outbox event(s) without an active Spring transaction: an event must belong to"
              + " one, or it could be delivered for a change that never happened. Call"
              + " OutboxEvents.send inside a @Transactional method (or a TransactionTemplate)."
              + " Nothing was sent.");
    }
  }
}
