package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxPosition;
import dev.outbox.inbox.internal.Decision.Position;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Runs the dialect's statements on the positions and received ids of one source. */
final class Positions {

  /** What a locking read found: the position and the gap recorded on it, if any. */
  record Locked(Position position, Position gap) {

    /** Whether a recorded gap is still ahead of the position. */
    boolean hasOpenGap() {
      return gap != null && position.isBefore(gap.epoch(), gap.seq());
    }
  }

  /** The most keys one locking read names. */
  static final int LOCK_CHUNK = 500;

  private final InboxDialect dialect;
  private final String source;

  Positions(InboxDialect dialect, String source) {
    this.dialect = dialect;
    this.source = source;
  }

  /** Moves the position from (epoch, from) to (epoch, to) if it is there: one round trip. */
  boolean advance(Connection connection, Key key, long epoch, long from, long to)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(dialect.advance)) {
      update.setLong(1, epoch);
      update.setLong(2, to);
      int next = bindKey(update, 3, key);
      update.setLong(next, epoch);
      update.setLong(next + 1, from);
      return update.executeUpdate() == 1;
    }
  }

  /** Reads and locks a position until the transaction ends; empty when there is no row. */
  Optional<Locked> lock(Connection connection, Key key) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(dialect.lock)) {
      bindKey(select, 1, key);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          return Optional.empty();
        }
        Position position = new Position(row.getLong(1), row.getLong(2));
        long gapEpoch = row.getLong(3);
        long gapSeq = row.getLong(4);
        Position gap = row.wasNull() ? null : new Position(gapEpoch, gapSeq);
        return Optional.of(new Locked(position, gap));
      }
    }
  }

  /**
   * Reads and locks the positions of several aggregates of the source, in key order, in chunks of
   * at most {@value #LOCK_CHUNK} keys.
   *
   * @param keys the keys, sorted
   * @return the rows found, by key; a key without a row is left out
   */
  Map<Key, Locked> lockAll(Connection connection, List<Key> keys) throws SQLException {
    Map<Key, Locked> found = new HashMap<>();
    String fromArrays = dialect.lockAllFromArrays();
    if (fromArrays != null) {
      try (PreparedStatement select = connection.prepareStatement(fromArrays)) {
        select.setArray(
            1,
            connection.createArrayOf("varchar", keys.stream().map(Key::aggregateType).toArray()));
        select.setArray(
            2, connection.createArrayOf("varchar", keys.stream().map(Key::aggregateId).toArray()));
        select.setString(3, source);
        readLocked(select, found);
      }
      return found;
    }
    for (int from = 0; from < keys.size(); from += LOCK_CHUNK) {
      List<Key> chunk = keys.subList(from, Math.min(keys.size(), from + LOCK_CHUNK));
      try (PreparedStatement select = connection.prepareStatement(dialect.lockAll(chunk.size()))) {
        select.setString(1, source);
        int index = 2;
        for (Key key : chunk) {
          select.setString(index++, key.aggregateType());
          select.setString(index++, key.aggregateId());
        }
        readLocked(select, found);
      }
    }
    return found;
  }

  private void readLocked(PreparedStatement select, Map<Key, Locked> found) throws SQLException {
    try (ResultSet row = select.executeQuery()) {
      while (row.next()) {
        Position position = new Position(row.getLong(3), row.getLong(4));
        long gapEpoch = row.getLong(5);
        long gapSeq = row.getLong(6);
        Position gap = row.wasNull() ? null : new Position(gapEpoch, gapSeq);
        found.put(new Key(source, row.getString(1), row.getString(2)), new Locked(position, gap));
      }
    }
  }

  /**
   * Moves locked positions, and records or lowers gaps on them, as JDBC batches: one round trip
   * each on drivers that send a batch at once.
   *
   * @param moved the new position of each moved key
   * @param recorded the gap to record (since now) per key
   * @param lowered the gap to lower (keeping since when) per key
   */
  void writeAll(
      Connection connection,
      Map<Key, Position> moved,
      Map<Key, Position> recorded,
      Map<Key, Position> lowered)
      throws SQLException {
    String moveAll = dialect.moveAll();
    if (moveAll != null && moved.size() > 1) {
      moveAll(connection, moveAll, moved);
    } else {
      batch(connection, dialect.move, moved);
    }
    batch(connection, dialect.recordGap, recorded);
    batch(connection, dialect.lowerGap, lowered);
  }

  private void moveAll(Connection connection, String sql, Map<Key, Position> moved)
      throws SQLException {
    int n = moved.size();
    String[] types = new String[n];
    String[] ids = new String[n];
    Long[] epochs = new Long[n];
    Long[] seqs = new Long[n];
    int k = 0;
    for (Map.Entry<Key, Position> row : moved.entrySet()) {
      types[k] = row.getKey().aggregateType();
      ids[k] = row.getKey().aggregateId();
      epochs[k] = row.getValue().epoch();
      seqs[k++] = row.getValue().seq();
    }
    try (PreparedStatement update = connection.prepareStatement(sql)) {
      update.setArray(1, connection.createArrayOf("varchar", types));
      update.setArray(2, connection.createArrayOf("varchar", ids));
      update.setArray(3, connection.createArrayOf("bigint", epochs));
      update.setArray(4, connection.createArrayOf("bigint", seqs));
      update.setString(5, source);
      int updated = update.executeUpdate();
      if (updated != n) {
        throw new SQLException(
            "Of "
                + n
                + " inbox positions locked by this transaction, "
                + updated
                + " were found: "
                + moved.keySet());
      }
    }
  }

  private static void batch(Connection connection, String sql, Map<Key, Position> rows)
      throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement update = connection.prepareStatement(sql)) {
      for (Map.Entry<Key, Position> row : rows.entrySet()) {
        update.setLong(1, row.getValue().epoch());
        update.setLong(2, row.getValue().seq());
        bindKey(update, 3, row.getKey());
        update.addBatch();
      }
      for (int count : update.executeBatch()) {
        if (count == 0) {
          throw new SQLException(
              "An inbox position locked by this transaction was not found: " + rows.keySet());
        }
      }
    }
  }

  /** Moves a locked position. */
  void move(Connection connection, Key key, long epoch, long seq) throws SQLException {
    update(connection, dialect.move, key, epoch, seq);
  }

  /** Records a gap on a locked position, since now; or lowers it, keeping since when. */
  void recordGap(Connection connection, Key key, long epoch, long seq, boolean lower)
      throws SQLException {
    update(connection, lower ? dialect.lowerGap : dialect.recordGap, key, epoch, seq);
  }

  /** Inserts a position at (epoch, seq) unless one exists; whether it was inserted. */
  boolean insertApplied(Connection connection, Key key, long epoch, long seq) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(dialect.insertApplied)) {
      int next = bindKey(insert, 1, key);
      insert.setLong(next, epoch);
      insert.setLong(next + 1, seq);
      return dialect.executeInsert(insert);
    }
  }

  /** Inserts a position with nothing applied and a gap unless one exists; whether it was. */
  boolean insertGap(Connection connection, Key key, long epoch, long seq) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(dialect.insertGap)) {
      int next = bindKey(insert, 1, key);
      insert.setLong(next, epoch);
      insert.setLong(next + 1, seq);
      return dialect.executeInsert(insert);
    }
  }

  /** Records a received id unless it was received before; whether it is new. */
  boolean insertId(Connection connection, String messageId) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(dialect.insertId)) {
      insert.setString(1, source);
      insert.setString(2, messageId);
      return dialect.executeInsert(insert);
    }
  }

  /** The positions of the source, or those with an open gap. */
  List<InboxPosition> read(Connection connection, boolean gapsOnly, int limit) throws SQLException {
    List<InboxPosition> found = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(gapsOnly ? dialect.gaps : dialect.list)) {
      select.setString(1, source);
      select.setInt(2, limit);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          found.add(position(rows));
        }
      }
    }
    return found;
  }

  /** Deletes one batch of idle positions or old ids; how many. */
  int deleteBatch(Connection connection, boolean ids, Duration age, int limit) throws SQLException {
    try (PreparedStatement delete =
        connection.prepareStatement(ids ? dialect.deleteOldIds : dialect.deleteIdlePositions)) {
      delete.setString(1, source);
      dialect.bindAge(delete, 2, age);
      delete.setInt(3, limit);
      return delete.executeUpdate();
    }
  }

  private InboxPosition position(ResultSet rows) throws SQLException {
    long epoch = rows.getLong(4);
    long seq = rows.getLong(5);
    long gapEpoch = rows.getLong(7);
    long gapSeq = rows.getLong(8);
    boolean open = !rows.wasNull() && new Position(epoch, seq).isBefore(gapEpoch, gapSeq);
    return new InboxPosition(
        rows.getString(1),
        rows.getString(2),
        rows.getString(3),
        epoch,
        seq,
        dialect.readInstant(rows, 6),
        open ? gapEpoch : 0,
        open ? gapSeq : 0,
        open ? dialect.readInstant(rows, 9) : null);
  }

  private void update(Connection connection, String sql, Key key, long epoch, long seq)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(sql)) {
      update.setLong(1, epoch);
      update.setLong(2, seq);
      bindKey(update, 3, key);
      if (update.executeUpdate() != 1) {
        throw new SQLException(
            "The inbox position of " + key + " is locked by this transaction but was not found");
      }
    }
  }

  private static int bindKey(PreparedStatement statement, int index, Key key) throws SQLException {
    statement.setString(index, key.source());
    statement.setString(index + 1, key.aggregateType());
    statement.setString(index + 2, key.aggregateId());
    return index + 3;
  }
}
