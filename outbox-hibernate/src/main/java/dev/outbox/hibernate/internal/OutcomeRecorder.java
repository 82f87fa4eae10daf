package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;

/**
 * Records the outcomes of one batch in the caller's transaction: published rows, failed attempts,
 * and moves to the dead-letter table. Failures and moves apply only while the row is still leased
 * to the recording instance; a publication always applies to a pending row.
 */
final class OutcomeRecorder {

  private final Database database;
  private final String published;
  private final String failed;
  private final String copyToDeadLetters;
  private final String deleteDeadLettered;

  OutcomeRecorder(Database database, OutboxOptions options) {
    this.database = database;
    String table = options.outboxTable();
    this.published =
        "UPDATE "
            + table
            + " SET status = 'PUBLISHED', published_at = ?, claimed_by = NULL,"
            + " claimed_until = NULL WHERE id = ? AND status = 'PENDING'";
    this.failed =
        "UPDATE "
            + table
            + " SET attempts = ?, last_error = ?, next_attempt_at = ?, claimed_by = NULL,"
            + " claimed_until = NULL WHERE id = ? AND claimed_by = ? AND status = 'PENDING'";
    this.copyToDeadLetters =
        "INSERT INTO "
            + options.deadLetterTable()
            + " (id, position, aggregate_type, aggregate_id, event_type, content_type, payload,"
            + " headers, occurred_at, created_at, attempts, last_error, dead_lettered_at)"
            + " SELECT id, position, aggregate_type, aggregate_id, event_type, content_type,"
            + " payload, headers, occurred_at, created_at, ?, ?, ? FROM "
            + table
            + " WHERE id = ? AND claimed_by = ? AND status = 'PENDING'";
    this.deleteDeadLettered =
        "DELETE FROM " + table + " WHERE id = ? AND claimed_by = ? AND status = 'PENDING'";
  }

  void record(Connection connection, String instanceId, Collection<? extends Outcome> outcomes)
      throws SQLException {
    try (PreparedStatement publish = connection.prepareStatement(published);
        PreparedStatement fail = connection.prepareStatement(failed);
        PreparedStatement copy = connection.prepareStatement(copyToDeadLetters);
        PreparedStatement delete = connection.prepareStatement(deleteDeadLettered)) {
      int publishes = 0;
      int failures = 0;
      for (Outcome outcome : outcomes) {
        if (outcome instanceof Outcome.Published p) {
          database.bindInstant(publish, 1, p.publishedAt());
          database.bindId(publish, 2, p.messageId());
          publish.addBatch();
          publishes++;
        } else if (outcome instanceof Outcome.Failed f) {
          fail.setInt(1, f.attempts());
          fail.setString(2, f.error());
          database.bindInstant(fail, 3, f.nextAttemptAt());
          database.bindId(fail, 4, f.messageId());
          fail.setString(5, instanceId);
          fail.addBatch();
          failures++;
        } else if (outcome instanceof Outcome.DeadLettered d) {
          copy.setInt(1, d.attempts());
          copy.setString(2, d.error());
          database.bindInstant(copy, 3, d.deadLetteredAt());
          database.bindId(copy, 4, d.messageId());
          copy.setString(5, instanceId);
          // One by one: MariaDB's bulk protocol refuses a batched INSERT ... SELECT.
          if (copy.executeUpdate() == 1) {
            database.bindId(delete, 1, d.messageId());
            delete.setString(2, instanceId);
            delete.executeUpdate();
          }
        }
      }
      if (publishes > 0) {
        publish.executeBatch();
      }
      if (failures > 0) {
        fail.executeBatch();
      }
    }
  }
}
