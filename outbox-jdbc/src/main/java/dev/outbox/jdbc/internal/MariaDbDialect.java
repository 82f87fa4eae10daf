package dev.outbox.jdbc.internal;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * MariaDB and MySQL: ids as CHAR(36), instants as DATETIME(6) in UTC; the head upsert is an {@code
 * INSERT ... ON DUPLICATE KEY UPDATE} followed by a select; deletes take {@code ORDER BY ...
 * LIMIT}; the store's transactions run at READ COMMITTED, whatever the connection's level.
 */
final class MariaDbDialect extends PortableDialect {

  // MariaDB assigns left to right, each assignment seeing the ones before it: write_seq, which the
  // others test, is assigned last.
  private static final String UPSERT =
      """
      INSERT INTO {heads}
        (aggregate_type, aggregate_id, write_seq, available_at, claimed_by, lease_token, epoch)
      VALUES %s
      ON DUPLICATE KEY UPDATE
        claimed_by = IF(write_seq = delivered_seq AND NOT held, VALUES(claimed_by), claimed_by),
        lease_token = IF(write_seq = delivered_seq AND NOT held
          AND VALUES(claimed_by) IS NOT NULL, lease_token + 1, lease_token),
        available_at = IF(write_seq = delivered_seq AND NOT held,
          VALUES(available_at), available_at),
        write_seq = write_seq + VALUES(write_seq)
      """;

  private static final String UPSERT_ROW =
      "(?, ?, ?, (UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND), ?, ?, ?)";

  private final Cleanup cleanup;

  MariaDbDialect(OutboxOptions options) {
    super(options, UPSERT, UPSERT_ROW);
    this.cleanup =
        new Cleanup(
            sql(
                """
            DELETE FROM {outbox}
            WHERE created_at < ? AND seq <= (SELECT h.delivered_seq FROM {heads} h
              WHERE h.aggregate_type = {outbox}.aggregate_type
                AND h.aggregate_id = {outbox}.aggregate_id)
            ORDER BY created_at LIMIT ?
            """),
            sql("DELETE FROM {outbox} WHERE created_at < ? ORDER BY created_at LIMIT ?"),
            sql(
                """
            DELETE FROM {heads}
            WHERE write_seq = delivered_seq AND NOT held AND claimed_by IS NULL
              AND NOT EXISTS (SELECT 1 FROM {outbox} m
                WHERE m.aggregate_type = {heads}.aggregate_type
                  AND m.aggregate_id = {heads}.aggregate_id)
            LIMIT ?
            """));
  }

  @Override
  public String migrationResource() {
    return "db/outbox/mariadb/V1__outbox_tables.sql";
  }

  @Override
  public String toString() {
    return "MariaDB/MySQL";
  }

  @Override
  String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  String nowPlus() {
    return "(UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)";
  }

  @Override
  void bindId(PreparedStatement statement, int index, UUID id) throws SQLException {
    statement.setString(index, id.toString());
  }

  @Override
  UUID readId(ResultSet rows, String column) throws SQLException {
    return UUID.fromString(rows.getString(column));
  }

  @Override
  void bindInstant(PreparedStatement statement, int index, Instant instant) throws SQLException {
    statement.setObject(
        index, instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  @Override
  Instant readInstant(ResultSet rows, String column) throws SQLException {
    LocalDateTime value = rows.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  /**
   * Asked: the default REPEATABLE READ is not READ COMMITTED. Under it a locking read keeps locks
   * on every row it examined and takes gap locks, and concurrent claims and records then deadlock.
   */
  @Override
  int isolation(Connection connection) throws SQLException {
    return connection.getTransactionIsolation();
  }

  @Override
  Cleanup cleanup() {
    return cleanup;
  }
}
