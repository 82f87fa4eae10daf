package dev.outbox.hibernate.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Claims due messages in two steps inside one short transaction.
 *
 * <ol>
 *   <li>A plain (non-locking) read finds due, unleased pending rows in position order; with
 *       per-aggregate order it skips a row while an earlier pending row of its aggregate is leased
 *       or waiting for its retry, so that what it takes of an aggregate is the aggregate's first
 *       pending rows. The processor publishes several messages of one aggregate in rounds, one per
 *       aggregate per round, and stops an aggregate at its first failure.
 *   <li>A locking read ({@code FOR UPDATE SKIP LOCKED}) takes those rows that are still pending,
 *       due and unleased, reading the latest committed state; a row another instance holds or just
 *       took is left out, and with it the rest of its aggregate.
 * </ol>
 *
 * The kept rows get the lease; the rest are unlocked at commit. The non-locking read matters on
 * MariaDB, where a subquery inside a locking read with {@code SKIP LOCKED} would skip the very rows
 * it must see. On PostgreSQL the locking read and the lease are one {@code UPDATE ... RETURNING}
 * over the rows the locking subquery took (one statement and one row version less per row, about a
 * tenth of a claim's time); the rare rows leased there that follow a row it could not lock, of the
 * same aggregate, get their lease taken back before the commit.
 */
final class ClaimQuery {

  private final Database database;
  private final MessageRows rows;
  private final String orderedScan;
  private final String unorderedScan;
  private final String holdClause;
  private final String lockPrefix;
  private final String leasePrefix;
  private final String lockAndLease;
  private final String unlease;

  ClaimQuery(Database database, OutboxOptions options) {
    this.database = database;
    this.rows = new MessageRows(database);
    String table = options.outboxTable();
    String due =
        " WHERE m.status = 'PENDING' AND m.next_attempt_at <= ?"
            + " AND (m.claimed_until IS NULL OR m.claimed_until <= ?)";
    // An aggregate is blocked from its first pending row that is not due or is leased; the rows
    // before it can be claimed, several per aggregate, so a backlog of few aggregates fills whole
    // batches. A scalar subquery with LIMIT 1, not NOT EXISTS: it cannot be turned into an
    // anti-join, so each scanned row is one short index range probe over the earlier pending rows
    // of its aggregate (those claimed with it) whatever the statistics say. NOT EXISTS was planned
    // on a fresh table (no statistics yet) as a nested loop over all pending rows.
    String notBlocked =
        " AND (SELECT 1 FROM "
            + table
            + " e WHERE e.status = 'PENDING' AND e.aggregate_type = m.aggregate_type"
            + " AND e.aggregate_id = m.aggregate_id AND e.position < m.position"
            + " AND (e.next_attempt_at > ? OR e.claimed_until > ?)"
            + " LIMIT 1) IS NULL";
    this.holdClause =
        " AND NOT EXISTS (SELECT 1 FROM "
            + options.deadLetterTable()
            + " d WHERE d.aggregate_type = m.aggregate_type AND d.aggregate_id = m.aggregate_id)";
    String select =
        "SELECT m.id, m.position, m.aggregate_type, m.aggregate_id FROM " + table + " m";
    this.unorderedScan = select + due;
    this.orderedScan = select + due + notBlocked;
    this.lockPrefix =
        "SELECT "
            + MessageRows.COLUMNS
            + " FROM "
            + table
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " AND (claimed_until IS NULL OR claimed_until <= ?) AND ";
    this.leasePrefix = "UPDATE " + table + " SET claimed_by = ?, claimed_until = ? WHERE ";
    // ARRAY(...) locks the candidates once, then updates them through the primary key.
    this.lockAndLease =
        leasePrefix
            + "id = ANY(ARRAY(SELECT id FROM "
            + table
            + " WHERE status = 'PENDING' AND next_attempt_at <= ?"
            + " AND (claimed_until IS NULL OR claimed_until <= ?) AND id = ANY(?)"
            + " FOR UPDATE SKIP LOCKED)) RETURNING "
            + MessageRows.COLUMNS;
    this.unlease =
        "UPDATE " + table + " SET claimed_by = NULL, claimed_until = NULL WHERE id = ANY(?)";
  }

  private record Candidate(UUID id, long position, String aggregate) {}

  List<OutboxMessage> claim(Connection connection, ClaimRequest request) throws SQLException {
    database.prepareShortQueries(connection);
    List<Candidate> candidates = scan(connection, request);
    if (candidates.isEmpty()) {
      return List.of();
    }
    boolean leasedWhileLocking = database == Database.POSTGRESQL;
    Map<UUID, OutboxMessage> locked =
        leasedWhileLocking
            ? lockAndLease(connection, request, candidates)
            : lock(connection, request, candidates);
    List<OutboxMessage> claimed =
        request.orderedPerAggregate()
            ? prefixes(candidates, locked)
            : new ArrayList<>(locked.values());
    if (leasedWhileLocking) {
      unleaseTheRest(connection, locked, claimed);
    } else if (!claimed.isEmpty()) {
      lease(connection, request, claimed);
    }
    claimed.sort(Comparator.comparingLong(OutboxMessage::position));
    return claimed;
  }

  /** The first step's SQL: now, now, (ordered: now, now,) limit. */
  String scanSql(boolean ordered, boolean hold) {
    return (ordered ? orderedScan : unorderedScan)
        + (hold ? holdClause : "")
        + " ORDER BY m.position LIMIT ?";
  }

  private List<Candidate> scan(Connection connection, ClaimRequest request) throws SQLException {
    String sql = scanSql(request.orderedPerAggregate(), request.holdAggregateOnDeadLetter());
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = 1;
      database.bindInstant(statement, index++, request.now());
      database.bindInstant(statement, index++, request.now());
      if (request.orderedPerAggregate()) {
        database.bindInstant(statement, index++, request.now());
        database.bindInstant(statement, index++, request.now());
      }
      statement.setInt(index, request.limit());
      List<Candidate> candidates = new ArrayList<>(request.limit());
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          candidates.add(
              new Candidate(
                  database.readId(result, "id"),
                  result.getLong("position"),
                  result.getString("aggregate_type")
                      + '\u0000'
                      + result.getString("aggregate_id")));
        }
      }
      return candidates;
    }
  }

  private Map<UUID, OutboxMessage> lock(
      Connection connection, ClaimRequest request, List<Candidate> candidates) throws SQLException {
    String sql = lockPrefix + database.idIn("id", candidates.size()) + " FOR UPDATE SKIP LOCKED";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      database.bindInstant(statement, 1, request.now());
      database.bindInstant(statement, 2, request.now());
      database.bindIds(statement, 3, candidates.stream().map(Candidate::id).toList());
      return messagesById(statement);
    }
  }

  /** PostgreSQL: locks the candidates and leases them in one statement. */
  private Map<UUID, OutboxMessage> lockAndLease(
      Connection connection, ClaimRequest request, List<Candidate> candidates) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(lockAndLease)) {
      statement.setString(1, request.instanceId());
      database.bindInstant(statement, 2, request.leaseUntil());
      database.bindInstant(statement, 3, request.now());
      database.bindInstant(statement, 4, request.now());
      database.bindIds(statement, 5, candidates.stream().map(Candidate::id).toList());
      return messagesById(statement);
    }
  }

  /** Takes back the lease of what {@link #lockAndLease} leased but the claim does not keep. */
  private void unleaseTheRest(
      Connection connection, Map<UUID, OutboxMessage> leased, List<OutboxMessage> claimed)
      throws SQLException {
    if (claimed.size() == leased.size()) {
      return;
    }
    Set<UUID> rest = new HashSet<>(leased.keySet());
    claimed.forEach(message -> rest.remove(message.id()));
    try (PreparedStatement statement = connection.prepareStatement(unlease)) {
      database.bindIds(statement, 1, rest);
      statement.executeUpdate();
    }
  }

  private Map<UUID, OutboxMessage> messagesById(PreparedStatement statement) throws SQLException {
    Map<UUID, OutboxMessage> messages = new HashMap<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        OutboxMessage message = rows.read(result);
        messages.put(message.id(), message);
      }
    }
    return messages;
  }

  /** Per aggregate, the candidates up to the first one that could not be locked. */
  private static List<OutboxMessage> prefixes(
      List<Candidate> candidates, Map<UUID, OutboxMessage> locked) {
    List<Candidate> byPosition = new ArrayList<>(candidates);
    byPosition.sort(Comparator.comparingLong(Candidate::position));
    Set<String> broken = new HashSet<>();
    List<OutboxMessage> kept = new ArrayList<>(locked.size());
    for (Candidate candidate : byPosition) {
      OutboxMessage message = locked.get(candidate.id());
      if (message == null) {
        broken.add(candidate.aggregate());
      } else if (!broken.contains(candidate.aggregate())) {
        kept.add(message);
      }
    }
    return kept;
  }

  private void lease(Connection connection, ClaimRequest request, List<OutboxMessage> claimed)
      throws SQLException {
    String sql = leasePrefix + database.idIn("id", claimed.size());
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, request.instanceId());
      database.bindInstant(statement, 2, request.leaseUntil());
      database.bindIds(statement, 3, claimed.stream().map(OutboxMessage::id).toList());
      statement.executeUpdate();
    }
  }
}
