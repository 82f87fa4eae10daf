package dev.outbox.jdbc.internal;

import dev.outbox.DomainEvent;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.LocalCommitHandOver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of one write, made as events are added and written together: the head upsert in sorted
 * key order (the writer's locks), then the rows with their seqs; after the commit, the heads leased
 * at write go to the processor of this JVM and the rest wake it.
 */
public final class PendingRows {

  private final EventRows rowsOfEvents;
  private final FlushWriter writer;
  private final LocalCommitHandOver handOver;
  private final String consequence;
  private final List<OutboxRow> rows = new ArrayList<>();

  /**
   * Rows for one write.
   *
   * @param rowsOfEvents makes the rows
   * @param writer writes them
   * @param handOver tells the processors after the commit
   * @param consequence what a failure of an event means for the caller
   */
  public PendingRows(
      EventRows rowsOfEvents,
      FlushWriter writer,
      LocalCommitHandOver handOver,
      String consequence) {
    this.rowsOfEvents = rowsOfEvents;
    this.writer = writer;
    this.handOver = handOver;
    this.consequence = consequence;
  }

  /**
   * Adds the row of an event, checked and serialized now.
   *
   * @throws dev.outbox.OutboxException naming what is wrong; nothing was added
   */
  public void add(String aggregateType, String aggregateId, DomainEvent event) {
    rows.add(rowsOfEvents.row(aggregateType, aggregateId, event, consequence));
  }

  /**
   * Moves the rows of another write behind these.
   *
   * @param other the rows to take; left empty
   */
  public void addAll(PendingRows other) {
    rows.addAll(other.rows);
    other.rows.clear();
  }

  /** How many rows wait to be written. */
  public int size() {
    return rows.size();
  }

  /**
   * Writes the rows on a connection in a transaction and forgets them.
   *
   * @param connection the caller's connection, in its transaction
   * @param commitObserved whether the caller runs the returned action after the commit; only then
   *     are heads leased to the processor of this JVM
   * @return what to run once the transaction committed
   */
  public Runnable write(Connection connection, boolean commitObserved) throws SQLException {
    if (rows.isEmpty()) {
      return () -> {};
    }
    CommitHandOver.LeaseReceiver receiver = commitObserved ? handOver.leaseReceiver() : null;
    Instant leaseUntil = receiver == null ? null : Instant.now().plus(receiver.lease());
    FlushWriter.Written written = writer.write(connection, List.copyOf(rows), receiver);
    rows.clear();
    return () -> {
      if (receiver != null) {
        handOver.handOver(receiver, written.leased(), leaseUntil);
      }
      if (written.leftToClaim()) {
        handOver.committed(); // rows no fast path carries: wake the processor to claim
      }
    };
  }
}
