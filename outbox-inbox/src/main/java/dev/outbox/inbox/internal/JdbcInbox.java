package dev.outbox.inbox.internal;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxException;
import dev.outbox.inbox.GapPolicy;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxCleanup;
import dev.outbox.inbox.InboxGapException;
import dev.outbox.inbox.InboxHandler;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxOutcome;
import dev.outbox.inbox.InboxPosition;
import dev.outbox.inbox.InboxResult;
import dev.outbox.inbox.internal.Decision.Position;
import dev.outbox.inbox.internal.Decision.Verdict;
import dev.outbox.inbox.internal.Positions.Locked;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbox on a JDBC data source. The next message of an aggregate takes one round trip: an update
 * that moves the position from the message's previous seq to its seq, locking the row. Anything
 * else (the first message of a stream, a duplicate, a gap, a position past the previous seq) reads
 * the position with a lock, decides by {@link Decision}, and moves, inserts or records the gap. A
 * missing position is inserted without a race ({@link InboxDialect#executeInsert}); an insert that
 * lost to a concurrent one starts the decision again on the row that won.
 */
final class JdbcInbox implements Inbox {

  private static final Logger LOG = LoggerFactory.getLogger(Inbox.class);

  /** How often the decision runs again after losing the insert of a missing position. */
  private static final int ATTEMPTS = 3;

  private final InboxOptions options;
  private final InboxDialect dialect;
  private final String source;
  private final Positions positions;
  private final Connections connections;
  private final Listeners listeners;
  private final InboxCleaner cleaner;
  private final BatchApply batchApply;

  JdbcInbox(Connections connections, InboxOptions options, InboxDialect dialect) {
    this.options = options;
    this.dialect = dialect;
    this.source = options.source();
    this.positions = new Positions(dialect, source);
    this.connections = connections;
    this.listeners = new Listeners(options.listeners(), source);
    this.cleaner = new InboxCleaner(connections, positions, options);
    this.batchApply = new BatchApply(this, positions, listeners, options);
  }

  @Override
  public InboxResult apply(Connection connection, IncomingMessage message, InboxHandler handler)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(handler, "handler");
    requireTransaction(connection);
    if (!message.hasSeq()) {
      return applyOnce(connection, message, handler);
    }
    Key key = Key.of(source, message);
    long prevSeq = message.prevSeq();
    if (prevSeq > 0
        && positions.advance(connection, key, message.epoch(), prevSeq, message.seq())) {
      return applied(connection, message, handler, key, new Position(message.epoch(), prevSeq));
    }
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      InboxResult settled = settle(connection, key, message, handler);
      if (settled != null) {
        return settled;
      }
    }
    throw new OutboxException(
        "Inbox '"
            + source
            + "' could not settle the position of "
            + key
            + " for "
            + message
            + " in "
            + ATTEMPTS
            + " attempts: it was inserted and deleted concurrently each time. Roll back and deliver"
            + " the message again");
  }

  /**
   * Decides on the locked position and acts: the slow path.
   *
   * @return the result, or {@code null} when a concurrent insert of the missing position won and
   *     the decision must run again on the row that won
   */
  private InboxResult settle(
      Connection connection, Key key, IncomingMessage message, InboxHandler handler)
      throws SQLException {
    Optional<Locked> locked = positions.lock(connection, key);
    Position at = locked.map(Locked::position).orElse(Position.NONE);
    Verdict verdict = Decision.decide(at, message);
    if (verdict == Verdict.DUPLICATE) {
      return listeners.report(result(InboxOutcome.DUPLICATE, key, message, at, at));
    }
    if (verdict == Verdict.GAP) {
      switch (options.gapPolicy()) {
        case FAIL -> throw gapFailure(key, message, at);
        case WAIT -> {
          if (!park(connection, key, message, locked)) {
            return null;
          }
          LOG.debug("{}; waiting for them (gapPolicy WAIT)", describeGap(message, at));
          return listeners.report(result(InboxOutcome.GAP, key, message, at, at));
        }
        case APPLY -> warnApplyingOverGap(message, at);
      }
    }
    if (locked.isPresent()) {
      positions.move(connection, key, message.epoch(), message.seq());
    } else if (!positions.insertApplied(connection, key, message.epoch(), message.seq())) {
      return null;
    }
    return applied(connection, message, handler, key, at);
  }

  InboxGapException gapFailure(Key key, IncomingMessage message, Position at) {
    InboxResult gap = listeners.report(result(InboxOutcome.GAP, key, message, at, at));
    return new InboxGapException(
        describeGap(message, at)
            + ". gapPolicy is FAIL, so nothing was written: roll the transaction back and"
            + " deliver the message again after the missing ones (or set gapPolicy WAIT to"
            + " wait for them, APPLY to skip them)",
        gap,
        message.epoch(),
        message.seq(),
        message.prevSeq());
  }

  @Override
  public List<InboxResult> applyAll(
      Connection connection, List<IncomingMessage> messages, InboxHandler handler)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(handler, "handler");
    List<IncomingMessage> batch = List.copyOf(messages);
    requireTransaction(connection);
    return batchApply.apply(connection, batch, handler);
  }

  @Override
  public List<InboxResult> receiveAll(List<IncomingMessage> messages, InboxHandler handler) {
    Objects.requireNonNull(handler, "handler");
    List<IncomingMessage> batch = List.copyOf(messages);
    try {
      return connections.transaction(connection -> applyAll(connection, batch, handler));
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + source
              + "' could not apply a batch of "
              + batch.size()
              + " messages on "
              + dialect
              + ": "
              + e.getMessage()
              + ". The transaction was rolled back; the messages apply when they are delivered"
              + " again",
          e);
    }
  }

  private void requireTransaction(Connection connection) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "Inbox.apply needs a connection in a transaction, so that the handler's effects and the"
              + " position of inbox '"
              + source
              + "' commit together, but the connection is in auto-commit mode: call"
              + " connection.setAutoCommit(false) before and commit after, or use"
              + " Inbox.receive(message, handler), which runs a transaction of its own");
    }
  }

  @Override
  public InboxResult receive(IncomingMessage message, InboxHandler handler) {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(handler, "handler");
    try {
      return connections.transaction(connection -> apply(connection, message, handler));
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + source
              + "' could not apply "
              + message
              + " on "
              + dialect
              + ": "
              + e.getMessage()
              + ". The transaction was rolled back; the message applies when it is delivered"
              + " again",
          e);
    }
  }

  @Override
  public InboxCleanup cleanUp() {
    return cleaner.cleanUp();
  }

  @Override
  public void start() {
    cleaner.start();
  }

  @Override
  public void close() {
    cleaner.close();
  }

  @Override
  public List<InboxPosition> positions(int limit) {
    return read(false, limit);
  }

  @Override
  public List<InboxPosition> gaps(int limit) {
    return read(true, limit);
  }

  @Override
  public InboxOptions options() {
    return options;
  }

  @Override
  public String toString() {
    return "Inbox[" + source + " in " + options.positionsTable() + " on " + dialect + ']';
  }

  /** A message without seq: applied when its id is new. */
  private InboxResult applyOnce(
      Connection connection, IncomingMessage message, InboxHandler handler) throws SQLException {
    Key.fitting("id", message.id(), message);
    if (!positions.insertId(connection, message.id())) {
      return listeners.report(result(InboxOutcome.DUPLICATE, null, message, null, null));
    }
    Handlers.run(handler, connection, message, source);
    LOG.debug("Inbox '{}' applied {} (by id)", source, message);
    return listeners.report(result(InboxOutcome.APPLIED, null, message, null, null));
  }

  private InboxResult applied(
      Connection connection,
      IncomingMessage message,
      InboxHandler handler,
      Key key,
      Position before)
      throws SQLException {
    Handlers.run(handler, connection, message, source);
    LOG.debug("Inbox '{}' applied {}", source, message);
    Position after = new Position(message.epoch(), message.seq());
    return listeners.report(result(InboxOutcome.APPLIED, key, message, before, after));
  }

  /**
   * Records a gap on the position: on a new row, or on the locked one unless an earlier gap is open
   * there (lowered to this message when it comes first, since when kept).
   *
   * @return false when a concurrent insert of the position won, to decide again
   */
  private boolean park(
      Connection connection, Key key, IncomingMessage message, Optional<Locked> locked)
      throws SQLException {
    long epoch = message.epoch();
    long seq = message.seq();
    if (locked.isEmpty()) {
      return positions.insertGap(connection, key, epoch, seq);
    }
    Locked row = locked.get();
    if (!row.hasOpenGap()) {
      positions.recordGap(connection, key, epoch, seq, false);
    } else if (new Position(epoch, seq).isBefore(row.gap().epoch(), row.gap().seq())) {
      positions.recordGap(connection, key, epoch, seq, true);
    }
    return true;
  }

  /** Logs that a message beyond a gap is applied anyway, as {@link GapPolicy#APPLY} asks. */
  void warnApplyingOverGap(IncomingMessage message, Position at) {
    LOG.warn("{}; applying it anyway (gapPolicy APPLY)", describeGap(message, at));
  }

  private String describeGap(IncomingMessage message, Position at) {
    return "Inbox '"
        + source
        + "' found a gap before "
        + message
        + " (previous seq "
        + message.prevSeq()
        + "): its position on "
        + message.aggregateType()
        + '/'
        + message.aggregateId()
        + " is epoch "
        + at.epoch()
        + ", seq "
        + at.seq()
        + ", so "
        + (message.epoch() == at.epoch()
            ? "the messages after seq " + at.seq() + " up to seq " + message.prevSeq()
            : "the messages of epoch " + message.epoch() + " up to seq " + message.prevSeq())
        + " have not been applied";
  }

  InboxResult result(
      InboxOutcome outcome, Key key, IncomingMessage message, Position before, Position after) {
    Position from = before == null ? Position.NONE : before;
    Position to = after == null ? Position.NONE : after;
    return new InboxResult(
        outcome,
        source,
        key == null ? message.aggregateType() : key.aggregateType(),
        key == null ? message.aggregateId() : key.aggregateId(),
        from.epoch(),
        from.seq(),
        to.epoch(),
        to.seq(),
        message.id());
  }

  private List<InboxPosition> read(boolean gapsOnly, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, but was " + limit);
    }
    try {
      return connections.autoCommit(connection -> positions.read(connection, gapsOnly, limit));
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + source
              + "' could not read its positions from "
              + options.positionsTable()
              + " on "
              + dialect
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
