package dev.outbox.benchmarks.internal;

import dev.outbox.jdbc.EventBatch;
import dev.outbox.jdbc.JdbcOutbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What {@code BenchAggregate.touch} does, in SQL on the transaction's connection: reads the
 * aggregate's row, updates it and sends its events with {@link JdbcOutbox#batch()}.
 */
final class JdbcTouch {

  private static final String SELECT = "SELECT steps FROM bench_aggregates WHERE id = ?";
  private static final String UPDATE =
      "UPDATE bench_aggregates SET steps = ?, touches = touches + 1 WHERE id = ?";

  private final JdbcOutbox outbox;
  private final String aggregateType;

  JdbcTouch(JdbcOutbox outbox, String aggregateType) {
    this.outbox = outbox;
    this.aggregateType = aggregateType;
  }

  /** Changes the aggregate and sends {@code events} events; returns nothing. */
  Void run(Connection connection, String id, int events) throws SQLException {
    long steps;
    try (PreparedStatement select = connection.prepareStatement(SELECT)) {
      select.setString(1, id);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        steps = row.getLong(1);
      }
    }
    EventBatch batch = outbox.batch();
    for (int i = 0; i < events; i++) {
      batch.add(aggregateType, id, BenchAggregate.Happened.of(id, steps++));
    }
    try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
      update.setLong(1, steps);
      update.setString(2, id);
      update.executeUpdate();
    }
    batch.send(connection);
    return null;
  }
}
