package dev.outbox.hibernate.internal;

import java.sql.PreparedStatement;
import java.util.List;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/** Inserts the rows of one flush as one JDBC batch on the session's connection. */
final class OutboxRowWriter {

  private final Database database;
  private final String insertSql;

  OutboxRowWriter(Database database, String table) {
    this.database = database;
    this.insertSql =
        "INSERT INTO "
            + table
            + " (id, aggregate_type, aggregate_id, event_type, content_type, payload, headers,"
            + " occurred_at, created_at, status, attempts, next_attempt_at, claimed_by,"
            + " claimed_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?, ?, ?)";
  }

  void write(SharedSessionContractImplementor session, List<OutboxRow> rows) {
    session.doWork(
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(insertSql)) {
            for (OutboxRow row : rows) {
              database.bindId(statement, 1, row.id());
              statement.setString(2, row.aggregateType());
              statement.setString(3, row.aggregateId());
              statement.setString(4, row.eventType());
              statement.setString(5, row.contentType());
              statement.setString(6, row.payload());
              statement.setString(7, row.headersJson());
              database.bindInstant(statement, 8, row.occurredAt());
              database.bindInstant(statement, 9, row.createdAt());
              database.bindInstant(statement, 10, row.createdAt());
              statement.setString(11, row.claimedBy());
              database.bindInstant(statement, 12, row.claimedUntil());
              statement.addBatch();
            }
            statement.executeBatch();
          }
        });
  }
}
