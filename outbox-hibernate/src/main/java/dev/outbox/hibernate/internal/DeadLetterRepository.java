package dev.outbox.hibernate.internal;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/** Lists, counts, replays and purges dead letters. */
final class DeadLetterRepository {

  private final Database database;
  private final MessageRows rows;
  private final String table;
  private final String replayInsert;

  DeadLetterRepository(Database database, OutboxOptions options) {
    this.database = database;
    this.rows = new MessageRows(database);
    this.table = options.deadLetterTable();
    this.replayInsert =
        "INSERT INTO "
            + options.outboxTable()
            + " (id, position, aggregate_type, aggregate_id, event_type, content_type, payload,"
            + " headers, occurred_at, created_at, status, attempts, next_attempt_at)"
            + " SELECT id, position, aggregate_type, aggregate_id, event_type, content_type,"
            + " payload, headers, occurred_at, created_at, 'PENDING', 0, ? FROM "
            + table
            + " WHERE id = ?";
  }

  List<DeadLetter> find(Connection connection, DeadLetterQuery query) throws SQLException {
    String sql =
        "SELECT "
            + MessageRows.COLUMNS
            + ", last_error, dead_lettered_at FROM "
            + table
            + where(query)
            + " ORDER BY dead_lettered_at, position LIMIT ? OFFSET ?";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = bindFilter(statement, query);
      statement.setInt(index++, query.limit());
      statement.setInt(index, query.offset());
      List<DeadLetter> found = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          found.add(
              new DeadLetter(
                  rows.read(result),
                  result.getString("last_error"),
                  database.readInstant(result, "dead_lettered_at")));
        }
      }
      return found;
    }
  }

  long count(Connection connection, DeadLetterQuery query) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement("SELECT COUNT(*) FROM " + table + where(query))) {
      bindFilter(statement, query);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    }
  }

  int replay(Connection connection, Collection<UUID> ids, Instant now) throws SQLException {
    int replayed = 0;
    try (PreparedStatement insert = connection.prepareStatement(replayInsert)) {
      for (UUID id : ids) {
        database.bindInstant(insert, 1, now);
        database.bindId(insert, 2, id);
        replayed += insert.executeUpdate();
      }
    }
    purge(connection, ids);
    return replayed;
  }

  int purge(Connection connection, Collection<UUID> ids) throws SQLException {
    int purged = 0;
    try (PreparedStatement delete =
        connection.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
      for (UUID id : ids) {
        database.bindId(delete, 1, id);
        purged += delete.executeUpdate();
      }
    }
    return purged;
  }

  private static String where(DeadLetterQuery query) {
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    if (query.eventType() != null) {
      where.append(" AND event_type = ?");
    }
    if (query.aggregateType() != null) {
      where.append(" AND aggregate_type = ?");
    }
    if (query.aggregateId() != null) {
      where.append(" AND aggregate_id = ?");
    }
    if (query.since() != null) {
      where.append(" AND dead_lettered_at >= ?");
    }
    if (query.until() != null) {
      where.append(" AND dead_lettered_at < ?");
    }
    return where.toString();
  }

  private int bindFilter(PreparedStatement statement, DeadLetterQuery query) throws SQLException {
    int index = 1;
    if (query.eventType() != null) {
      statement.setString(index++, query.eventType());
    }
    if (query.aggregateType() != null) {
      statement.setString(index++, query.aggregateType());
    }
    if (query.aggregateId() != null) {
      statement.setString(index++, query.aggregateId());
    }
    if (query.since() != null) {
      database.bindInstant(statement, index++, query.since());
    }
    if (query.until() != null) {
      database.bindInstant(statement, index++, query.until());
    }
    return index;
  }
}
