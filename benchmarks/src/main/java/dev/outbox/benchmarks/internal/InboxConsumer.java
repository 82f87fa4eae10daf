package dev.outbox.benchmarks.internal;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxOutcome;
import dev.outbox.inbox.InboxResult;
import dev.outbox.spi.WireHeaders;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The consumer of the inbox benchmark, on tables of its own: applies received messages in
 * transactions of {@value #BATCH} (a consumer commits a poll), each with a small effect of its own
 * (the update of its aggregate's counter row in {@value #EFFECTS}), either through {@link
 * Inbox#applyAll} (the whole poll: its positions locked in one read and written in one batch) or by
 * running the same handler directly. One thread, one pooled connection per transaction.
 */
final class InboxConsumer implements AutoCloseable {

  /** Messages per transaction. */
  static final int BATCH = 50;

  /** The inbox's positions table. */
  static final String POSITIONS = "bench_inbox_positions";

  /** The inbox's table of received ids (messages without seq; none here). */
  static final String RECEIVED_IDS = "bench_inbox_received_ids";

  /** The handler's effect: one counter row per aggregate. */
  static final String EFFECTS = "bench_inbox_effects";

  private static final String AGGREGATE_TYPE = "bench-inbox";
  private static final long EPOCH = 1_764_000_000_000L;
  private static final String EFFECT =
      "UPDATE "
          + EFFECTS
          + " SET applied = applied + 1, last_seq = ?, last_message = ? WHERE aggregate_id = ?";

  /** How many messages the stream builds ahead of applying them (untimed). */
  private static final int CHUNK = 10_000;

  /** A run of the stream: how many messages were applied, in how many seconds of transactions. */
  record Run(long messages, double seconds, boolean capped) {

    double rate() {
      return messages / seconds;
    }
  }

  private final BenchDatabase db;
  private final int aggregates;
  private final Inbox inbox;

  private InboxConsumer(BenchDatabase db, int aggregates, Inbox inbox) {
    this.db = db;
    this.aggregates = aggregates;
    this.inbox = inbox;
  }

  /**
   * Drops the benchmark's inbox tables, creates the effects table and the inbox (which creates its
   * tables).
   */
  static InboxConsumer create(BenchDatabase db, int aggregates) {
    drop(db);
    db.execute(
        "CREATE TABLE "
            + EFFECTS
            + " (aggregate_id varchar(255) PRIMARY KEY, applied bigint NOT NULL,"
            + " last_seq bigint NOT NULL, last_message varchar(64))");
    InboxOptions options =
        InboxOptions.builder()
            .source("bench")
            .positionsTable(POSITIONS)
            .receivedIdsTable(RECEIVED_IDS)
            .createSchema(true)
            .build();
    InboxConsumer consumer =
        new InboxConsumer(db, aggregates, Inbox.create(db.dataSource(), options));
    consumer.reset();
    return consumer;
  }

  /** Empties the positions and received ids, and sets every aggregate's counter to 0. */
  void reset() {
    db.execute("TRUNCATE " + POSITIONS + ", " + RECEIVED_IDS + ", " + EFFECTS);
    db.update(
        "INSERT INTO "
            + EFFECTS
            + " (aggregate_id, applied, last_seq) SELECT 'agg-' || g, 0, 0"
            + " FROM generate_series(0, ? - 1) AS g",
        aggregates);
    db.execute("ANALYZE " + EFFECTS);
  }

  /**
   * Messages {@code from} to {@code from + count - 1} of the stream, as a broker binding reads
   * them: message i is the next of aggregate {@code agg-(i % aggregates)}, seq {@code i /
   * aggregates + 1} in one epoch, with the relays' 1,024-byte payload.
   */
  List<IncomingMessage> messages(long from, int count) {
    List<IncomingMessage> messages = new ArrayList<>(count);
    for (long i = from; i < from + count; i++) {
      OutboxMessage m = SyntheticMessages.message(AGGREGATE_TYPE, i, aggregates);
      long seq = i / aggregates + 1;
      OutboxMessage sent =
          new OutboxMessage(
              m.id(),
              seq,
              m.aggregateType(),
              m.aggregateId(),
              m.eventType(),
              m.contentType(),
              m.payload(),
              m.headers(),
              m.occurredAt(),
              m.createdAt(),
              0,
              EPOCH,
              seq - 1);
      messages.add(IncomingMessage.of(WireHeaders.of(sent), sent.payloadBytes(), null));
    }
    return messages;
  }

  /**
   * Applies messages in transactions of {@value #BATCH}.
   *
   * @param messages in seq order per aggregate
   * @param withInbox through the inbox, or the handler alone
   * @return the nanoseconds spent in the transactions
   */
  long apply(List<IncomingMessage> messages, boolean withInbox) {
    return apply(messages, withInbox, UnaryOperator.identity());
  }

  /** The same on connections wrapped by a counter: untimed, for statements per message. */
  void count(List<IncomingMessage> messages, boolean withInbox, StatementCounter counter) {
    apply(messages, withInbox, counter::wrap);
  }

  /**
   * Applies {@code count} messages through the inbox, the stream's next ones from the start, built
   * {@value #CHUNK} at a time between the timed transactions; stops early after {@code cap}.
   */
  Run stream(long count, Duration cap) {
    long deadline = System.nanoTime() + cap.toNanos();
    long nanos = 0;
    long done = 0;
    while (done < count && System.nanoTime() < deadline) {
      List<IncomingMessage> chunk = messages(done, (int) Math.min(CHUNK, count - done));
      nanos += apply(chunk, true);
      done += chunk.size();
    }
    return new Run(done, nanos / 1e9, done < count);
  }

  private long apply(
      List<IncomingMessage> messages, boolean withInbox, UnaryOperator<Connection> wrap) {
    long nanos = 0;
    for (int from = 0; from < messages.size(); from += BATCH) {
      List<IncomingMessage> batch = messages.subList(from, Math.min(messages.size(), from + BATCH));
      long start = System.nanoTime();
      transaction(batch, withInbox, wrap);
      nanos += System.nanoTime() - start;
    }
    return nanos;
  }

  private void transaction(
      List<IncomingMessage> batch, boolean withInbox, UnaryOperator<Connection> wrap) {
    try (Connection pooled = db.dataSource().getConnection()) {
      pooled.setAutoCommit(false);
      Connection connection = wrap.apply(pooled);
      try {
        if (withInbox) {
          // The poll through the inbox at once, as a consumer that commits a poll runs it.
          List<InboxResult> results = inbox.applyAll(connection, batch, InboxConsumer::effect);
          for (InboxResult result : results) {
            if (result.outcome() != InboxOutcome.APPLIED) {
              throw new IllegalStateException("The inbox did not apply a message: " + result);
            }
          }
        } else {
          for (IncomingMessage message : batch) {
            effect(connection, message);
          }
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        pooled.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Inbox benchmark transaction: " + e.getMessage(), e);
    }
  }

  /** The handler: counts the message on its aggregate's row. */
  private static void effect(Connection connection, IncomingMessage message) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(EFFECT)) {
      update.setLong(1, message.seq());
      update.setString(2, message.id());
      update.setString(3, message.aggregateId());
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("No counter row for " + message);
      }
    }
  }

  /** Stops the inbox and drops the tables. */
  @Override
  public void close() {
    inbox.close();
    drop(db);
  }

  private static void drop(BenchDatabase db) {
    db.execute(
        "DROP TABLE IF EXISTS " + POSITIONS,
        "DROP TABLE IF EXISTS " + RECEIVED_IDS,
        "DROP TABLE IF EXISTS " + EFFECTS);
  }
}
