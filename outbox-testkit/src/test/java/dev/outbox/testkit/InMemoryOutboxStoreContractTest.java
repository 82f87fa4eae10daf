package dev.outbox.testkit;

import dev.outbox.spi.OutboxStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The in-memory store every engine test in outbox-api runs on, held to the same contract as the
 * JDBC store on PostgreSQL, MariaDB and H2, on a clock of the test's that {@link #elapse} advances.
 */
class InMemoryOutboxStoreContractTest extends OutboxStoreContract {

  private MutableClock clock;
  private InMemoryOutboxStore store;

  @Override
  protected OutboxStore store() {
    return store;
  }

  @Override
  protected void clear() {
    clock = new MutableClock(Instant.now());
    store = new InMemoryOutboxStore(clock);
  }

  @Override
  protected void commit(List<NewMessage> messages) {
    synchronized (store) {
      for (NewMessage m : messages) {
        store.add(m.aggregateType(), m.aggregateId(), m.eventType(), m.payload(), m.headers());
      }
    }
  }

  @Override
  protected List<StoredHead> heads() {
    return store.heads().stream()
        .map(
            h ->
                new StoredHead(
                    h.aggregateType(),
                    h.aggregateId(),
                    h.writeSeq(),
                    h.deliveredSeq(),
                    h.availableAt(),
                    h.claimedBy(),
                    h.leaseToken(),
                    h.attempts(),
                    h.lastError(),
                    h.held()))
        .toList();
  }

  @Override
  protected List<StoredMessage> messages() {
    return store.rows().stream()
        .map(
            row ->
                new StoredMessage(
                    row.message().aggregateType(),
                    row.message().aggregateId(),
                    row.message().seq(),
                    row.status() == InMemoryOutboxStore.Status.PUBLISHED))
        .toList();
  }

  @Override
  protected void elapse(Duration duration) {
    clock.advance(duration);
  }

  @Override
  protected Instant now() {
    return clock.instant();
  }
}
