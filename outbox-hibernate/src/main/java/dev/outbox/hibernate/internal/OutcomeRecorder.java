package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Records the outcomes of one batch in the caller's transaction: published rows, failed attempts,
 * releases of messages that were held back, and moves to the dead-letter table. Failures, releases
 * and moves apply only while the row is still leased to the recording instance; a publication
 * always applies to a pending row.
 */
final class OutcomeRecorder {

  private final Database database;
  private final String published;
  private final String failed;
  private final String released;
  private final String copyToDeadLetters;
  private final String deleteDeadLettered;

  OutcomeRecorder(Database database, OutboxOptions options) {
    this.database = database;
    String table = options.outboxTable();
    this.published =
        "UPDATE "
            + table
            + " SET status = 'PUBLISHED', published_at = ?, claimed_by = NULL,"
            + " claimed_until = NULL WHERE status = 'PENDING' AND ";
    this.failed =
        "UPDATE "
            + table
            + " SET attempts = ?, last_error = ?, next_attempt_at = ?, claimed_by = NULL,"
            + " claimed_until = NULL WHERE id = ? AND claimed_by = ? AND status = 'PENDING'";
    this.released =
        "UPDATE "
            + table
            + " SET claimed_by = NULL, claimed_until = NULL"
            + " WHERE id = ? AND claimed_by = ? AND status = 'PENDING'";
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
    Map<Instant, List<UUID>> publishedAt = new LinkedHashMap<>();
    for (Outcome outcome : outcomes) {
      if (outcome instanceof Outcome.Published p) {
        publishedAt.computeIfAbsent(p.publishedAt(), at -> new ArrayList<>()).add(p.messageId());
      }
    }
    for (Map.Entry<Instant, List<UUID>> group : publishedAt.entrySet()) {
      markPublished(connection, group.getKey(), group.getValue());
    }
    try (PreparedStatement fail = connection.prepareStatement(failed);
        PreparedStatement release = connection.prepareStatement(released);
        PreparedStatement copy = connection.prepareStatement(copyToDeadLetters);
        PreparedStatement delete = connection.prepareStatement(deleteDeadLettered)) {
      int failures = 0;
      int releases = 0;
      for (Outcome outcome : outcomes) {
        if (outcome instanceof Outcome.Failed f) {
          fail.setInt(1, f.attempts());
          fail.setString(2, storable(f.error()));
          database.bindInstant(fail, 3, f.nextAttemptAt());
          database.bindId(fail, 4, f.messageId());
          fail.setString(5, instanceId);
          fail.addBatch();
          failures++;
        } else if (outcome instanceof Outcome.Released r) {
          database.bindId(release, 1, r.messageId());
          release.setString(2, instanceId);
          release.addBatch();
          releases++;
        } else if (outcome instanceof Outcome.DeadLettered d) {
          copy.setInt(1, d.attempts());
          copy.setString(2, storable(d.error()));
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
      if (failures > 0) {
        fail.executeBatch();
      }
      if (releases > 0) {
        release.executeBatch();
      }
    }
  }

  /** One statement for all the messages published at one instant (usually the whole batch). */
  private void markPublished(Connection connection, Instant at, List<UUID> ids)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(published + database.idIn("id", ids.size()))) {
      database.bindInstant(statement, 1, at);
      database.bindIds(statement, 2, ids);
      statement.executeUpdate();
    }
  }

  /**
   * An error text every database stores: PostgreSQL refuses U+0000 in text, and a broker's error
   * message may contain it. Without this the record of the whole batch would fail.
   */
  static String storable(String error) {
    return error == null ? null : error.replace('\u0000', '\uFFFD');
  }
}
