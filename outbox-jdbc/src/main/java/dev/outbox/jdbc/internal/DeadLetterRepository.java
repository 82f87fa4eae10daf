package dev.outbox.jdbc.internal;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * Lists, counts, replays and purges dead letters. A dead letter its aggregate is held on is the
 * message right after the head's cursor, still in the outbox table: a replay lifts the hold and the
 * head is due at once; a purge moves the cursor past it. Any other dead letter is no longer in the
 * outbox table: a replay appends it again to its aggregate with a new seq and the same id.
 */
final class DeadLetterRepository {

  /** Where a dead letter stood in its aggregate's stream. */
  private record Place(String aggregateType, String aggregateId, long seq) {}

  private final Dialect dialect;
  private final MessageRows rows;
  private final HeadUpsert heads;
  private final String count;
  private final String deleteDeadLetter;
  private final String select;
  private final String place;
  private final String unhold;
  private final String skip;
  private final String deleteMessage;
  private final String append;

  DeadLetterRepository(Dialect dialect) {
    this.dialect = dialect;
    this.rows = new MessageRows(dialect);
    this.heads = new HeadUpsert(dialect);
    this.count = dialect.sql("SELECT COUNT(*) FROM {dead_letters}");
    this.deleteDeadLetter = dialect.sql("DELETE FROM {dead_letters} WHERE id = ?");
    this.select =
        dialect.sql(
            "SELECT "
                + MessageRows.COLUMNS
                + ", attempts, last_error, dead_lettered_at FROM {dead_letters}");
    this.place =
        dialect.sql("SELECT aggregate_type, aggregate_id, seq FROM {dead_letters} WHERE id = ?");
    this.unhold =
        dialect.sql(
            """
            UPDATE {heads} SET held = FALSE, attempts = 0, last_error = NULL, available_at = {now}
            WHERE aggregate_type = ? AND aggregate_id = ? AND held AND delivered_seq = ?
            """);
    this.skip =
        dialect.sql(
            """
            UPDATE {heads} SET held = FALSE, attempts = 0, last_error = NULL, available_at = {now},
              delivered_seq = delivered_seq + 1
            WHERE aggregate_type = ? AND aggregate_id = ? AND held AND delivered_seq = ?
            """);
    this.deleteMessage =
        dialect.sql(
            "DELETE FROM {outbox} WHERE aggregate_type = ? AND aggregate_id = ? AND seq = ?");
    this.append =
        dialect.sql(
            """
            INSERT INTO {outbox} (id, aggregate_type, aggregate_id, seq, event_type, content_type,
              payload, headers, occurred_at, created_at, epoch)
            SELECT id, aggregate_type, aggregate_id, ?, event_type, content_type, payload, headers,
              occurred_at, created_at, ?
            FROM {dead_letters} WHERE id = ?
            """);
  }

  /** Every fixed statement, for checks. */
  List<String> statements() {
    return List.of(select, place, unhold, skip, deleteMessage, append, count, deleteDeadLetter);
  }

  List<DeadLetter> find(Connection connection, DeadLetterQuery query) throws SQLException {
    String sql = select + where(query) + " ORDER BY dead_lettered_at, id LIMIT ? OFFSET ?";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = bindFilter(statement, query);
      statement.setInt(index++, query.limit());
      statement.setInt(index, query.offset());
      return read(statement);
    }
  }

  Optional<DeadLetter> find(Connection connection, UUID id) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(select + " WHERE id = ?")) {
      dialect.bindId(statement, 1, id);
      return read(statement).stream().findFirst();
    }
  }

  private List<DeadLetter> read(PreparedStatement statement) throws SQLException {
    List<DeadLetter> found = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        found.add(
            new DeadLetter(
                rows.read(result, result.getInt("attempts"), result.getLong("seq") - 1),
                result.getString("last_error"),
                dialect.readInstant(result, "dead_lettered_at")));
      }
    }
    return found;
  }

  long count(Connection connection, DeadLetterQuery query) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(count + where(query))) {
      bindFilter(statement, query);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    }
  }

  int replay(Connection connection, Collection<UUID> ids) throws SQLException {
    int replayed = 0;
    for (UUID id : ids) {
      Place at = place(connection, id);
      if (at == null) {
        continue;
      }
      if (atTheHold(connection, unhold, at) == 0) {
        HeadUpsert.Written written =
            heads
                .upsert(
                    connection,
                    List.of(
                        new HeadUpsert.Part(
                            at.aggregateType(), at.aggregateId(), 1, System.currentTimeMillis())),
                    null,
                    null)
                .get(HeadUpsert.key(at.aggregateType(), at.aggregateId()));
        try (PreparedStatement insert = connection.prepareStatement(append)) {
          insert.setLong(1, written.firstSeq());
          insert.setLong(2, written.epoch());
          dialect.bindId(insert, 3, id);
          insert.executeUpdate();
        }
      }
      replayed += delete(connection, id);
    }
    return replayed;
  }

  int purge(Connection connection, Collection<UUID> ids) throws SQLException {
    int purged = 0;
    for (UUID id : ids) {
      Place at = place(connection, id);
      if (at == null) {
        continue;
      }
      if (atTheHold(connection, skip, at) == 1) {
        try (PreparedStatement delete = connection.prepareStatement(deleteMessage)) {
          delete.setString(1, at.aggregateType());
          delete.setString(2, at.aggregateId());
          delete.setLong(3, at.seq());
          delete.executeUpdate();
        }
      }
      purged += delete(connection, id);
    }
    return purged;
  }

  private Place place(Connection connection, UUID id) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(place)) {
      dialect.bindId(statement, 1, id);
      try (ResultSet result = statement.executeQuery()) {
        return result.next()
            ? new Place(
                result.getString("aggregate_type"),
                result.getString("aggregate_id"),
                result.getLong("seq"))
            : null;
      }
    }
  }

  /** Runs an update of the head held at the dead letter; returns how many rows it changed. */
  private static int atTheHold(Connection connection, String sql, Place at) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, at.aggregateType());
      statement.setString(2, at.aggregateId());
      statement.setLong(3, at.seq() - 1);
      return statement.executeUpdate();
    }
  }

  private int delete(Connection connection, UUID id) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(deleteDeadLetter)) {
      dialect.bindId(delete, 1, id);
      return delete.executeUpdate();
    }
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
    if (query.errorContains() != null) {
      where.append(" AND LOWER(last_error) LIKE ? ESCAPE '!'");
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
    if (query.errorContains() != null) {
      statement.setString(index++, containing(query.errorContains()));
    }
    if (query.since() != null) {
      dialect.bindInstant(statement, index++, query.since());
    }
    if (query.until() != null) {
      dialect.bindInstant(statement, index++, query.until());
    }
    return index;
  }

  /** A LIKE pattern matching the text anywhere, its wildcards taken literally. */
  static String containing(String text) {
    String literal =
        text.toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%").replace("_", "!_");
    return "%" + literal + "%";
  }
}
