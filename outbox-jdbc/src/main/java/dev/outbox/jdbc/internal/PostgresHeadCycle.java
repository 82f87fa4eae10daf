package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL: the record, the claim and the read as set-based statements on arrays ({@link
 * PostgresHeadStatements}), one round trip each whatever the batch size; a batch without dead
 * letters is recorded, claimed and read on in one statement, in auto-commit.
 */
final class PostgresHeadCycle extends HeadCycle {

  private final PostgresHeadStatements statements;

  PostgresHeadCycle(PostgresDialect dialect, HeadRecorder recorder) {
    super(dialect, recorder);
    this.statements = new PostgresHeadStatements(dialect);
  }

  @Override
  List<String> statements() {
    return statements.statements();
  }

  /**
   * With no dead letter among the outcomes, the record, the claim and the read are one statement,
   * in auto-commit, one round trip in all; a dead letter is copied in a transaction first.
   */
  @Override
  List<LeasedHead> recordAndClaim(
      Jdbc jdbc, Collection<? extends HeadOutcome> outcomes, ClaimRequest request) {
    if (!HeadRecorder.withoutDeadLetters(outcomes)) {
      return super.recordAndClaim(jdbc, outcomes, request);
    }
    return jdbc.inOneStatement(
        "record a batch and read on", connection -> inOneStatement(connection, outcomes, request));
  }

  private List<LeasedHead> inOneStatement(
      Connection connection, Collection<? extends HeadOutcome> outcomes, ClaimRequest request)
      throws SQLException {
    int heads = request.newHeads() ? request.limit() : 0;
    if (outcomes.isEmpty()) {
      return heads == 0
          ? List.of()
          : claimAndRead(
              connection, request.instanceId(), heads, request.lease(), List.of(), request.limit());
    }
    List<HeadChange> changes = recorder.changes(connection, outcomes, true, new ArrayList<>());
    return leasedHeads(
        connection,
        statements.recordClaimAndRead(
            connection,
            changes,
            request.lease(),
            request.instanceId(),
            heads,
            request.lease(),
            request.limit()),
        request.limit());
  }

  /** One {@code UPDATE ... FROM unnest(...)} whose {@code RETURNING} names the kept heads. */
  @Override
  List<Held> update(
      Connection connection,
      String instanceId,
      List<HeadChange> changes,
      List<Lease> delivering,
      Duration continueFor)
      throws SQLException {
    List<Held> kept = statements.update(connection, changes, continueFor);
    return continueFor == null ? List.of() : kept;
  }

  /** One statement. */
  @Override
  List<LeasedHead> claimAndRead(
      Connection connection,
      String instanceId,
      int heads,
      Duration leaseFor,
      List<Held> held,
      int limit)
      throws SQLException {
    return leasedHeads(
        connection,
        statements.claimAndRead(connection, instanceId, heads, leaseFor, held, limit),
        limit);
  }

  /** A join on arrays. */
  @Override
  PreparedStatement readStatement(Connection connection, List<Held> heads, int each)
      throws SQLException {
    return statements.read(connection, heads, each);
  }

  /**
   * Runs a statement of {@link PostgresHeadStatements} that reads heads' messages; heads it held
   * but showed no message of are read again by a statement of their own, which sees what committed
   * meanwhile.
   */
  private List<LeasedHead> leasedHeads(Connection connection, PreparedStatement read, int limit)
      throws SQLException {
    Map<String, Lease> leases = new LinkedHashMap<>();
    Map<String, List<OutboxMessage>> byHead = new HashMap<>();
    List<Held> unseen = new ArrayList<>();
    try (PreparedStatement statement = read;
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        Lease lease =
            new Lease(
                result.getString("head_type"),
                result.getString("head_id"),
                result.getLong("head_token"));
        long cursor = result.getLong("head_cursor");
        int attempts = result.getInt("head_attempts");
        long published = result.getLong("head_published");
        if (result.getObject("id") == null) {
          unseen.add(new Held(lease, cursor, attempts, published));
          continue;
        }
        String key = key(lease);
        leases.putIfAbsent(key, lease);
        long seq = result.getLong("seq");
        List<OutboxMessage> messages = byHead.computeIfAbsent(key, k -> new ArrayList<>());
        messages.add(
            rows.read(result, seq == cursor + 1 ? attempts : 0, previous(messages, published)));
      }
    }
    List<LeasedHead> leased = new ArrayList<>(leases.size() + unseen.size());
    leases.forEach((key, lease) -> leased.add(new LeasedHead(lease, byHead.get(key))));
    if (!unseen.isEmpty()) {
      int each = Math.max(1, limit / (leases.size() + unseen.size()));
      leased.addAll(read(connection, unseen, each * unseen.size()));
    }
    return leased;
  }
}
