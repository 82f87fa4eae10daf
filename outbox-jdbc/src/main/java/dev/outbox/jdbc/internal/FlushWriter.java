package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the rows of one flush after the flush's own statements: the head upsert (which takes each
 * aggregate's seqs, in sorted key order, and may lease idle heads to the processor of this JVM),
 * then the rows with their seqs as multi-row inserts.
 */
public final class FlushWriter {

  /** Larger flushes are bulk writes: their heads are not leased at write, the claim takes them. */
  static final int MAX_LEASED_AGGREGATES = 50;

  /**
   * What a flush wrote.
   *
   * @param rows every row with its seq
   * @param leased the heads leased to the processor of this JVM, with the flush's messages of each
   */
  record Written(List<OutboxRow> rows, List<LeasedHead> leased) {

    /** Whether some rows wait for a holder or a claim rather than the fast path. */
    boolean leftToClaim() {
      return leased.stream().mapToInt(head -> head.messages().size()).sum() < rows.size();
    }
  }

  private final HeadUpsert heads;
  private final OutboxRowWriter rows;
  private final PostgresFlushStatement oneStatement;

  public FlushWriter(Database database, String headTable, String outboxTable) {
    this.heads = new HeadUpsert(database, headTable);
    this.rows = new OutboxRowWriter(database, outboxTable);
    this.oneStatement =
        database == Database.POSTGRESQL
            ? new PostgresFlushStatement(heads, rows, outboxTable)
            : null;
  }

  Written write(
      Connection connection, List<OutboxRow> harvested, CommitHandOver.LeaseReceiver receiver)
      throws SQLException {
    Map<String, List<OutboxRow>> byAggregate = new TreeMap<>();
    for (OutboxRow row : harvested) {
      byAggregate.computeIfAbsent(row.aggregateKey(), key -> new ArrayList<>()).add(row);
    }
    List<HeadUpsert.Part> parts = new ArrayList<>(byAggregate.size());
    byAggregate.forEach(
        (key, list) ->
            parts.add(
                new HeadUpsert.Part(
                    list.get(0).aggregateType(), list.get(0).aggregateId(), list.size())));
    boolean lease = receiver != null && parts.size() <= MAX_LEASED_AGGREGATES;
    String claimer = lease ? receiver.instanceId() : null;
    Duration leaseFor = lease ? receiver.lease() : null;
    if (oneStatement != null && harvested.size() <= OutboxRowWriter.ROWS_PER_STATEMENT) {
      Map<String, HeadUpsert.Written> written =
          oneStatement.write(connection, parts, fromEnd(harvested, byAggregate), claimer, leaseFor);
      return sequence(harvested, byAggregate, written, null);
    }
    Map<String, HeadUpsert.Written> written = heads.upsert(connection, parts, claimer, leaseFor);
    return sequence(harvested, byAggregate, written, connection);
  }

  /** The rows, each with how many rows of its aggregate follow it in place of its seq. */
  private static List<OutboxRow> fromEnd(
      List<OutboxRow> harvested, Map<String, List<OutboxRow>> byAggregate) {
    Map<String, Integer> seen = new HashMap<>();
    List<OutboxRow> marked = new ArrayList<>(harvested.size());
    for (OutboxRow row : harvested) {
      int index = seen.merge(row.aggregateKey(), 1, Integer::sum) - 1;
      marked.add(row.at(byAggregate.get(row.aggregateKey()).size() - 1 - index));
    }
    return marked;
  }

  /**
   * Gives each row its seq, inserts the rows when a connection is given, and collects the heads
   * leased to this JVM with their messages.
   */
  private Written sequence(
      List<OutboxRow> harvested,
      Map<String, List<OutboxRow>> byAggregate,
      Map<String, HeadUpsert.Written> written,
      Connection insertOn)
      throws SQLException {
    Map<String, List<OutboxRow>> sequenced = new LinkedHashMap<>();
    List<LeasedHead> leased = new ArrayList<>();
    byAggregate.forEach(
        (key, list) -> {
          HeadUpsert.Written head = written.get(key);
          List<OutboxRow> withSeq = new ArrayList<>(list.size());
          for (int i = 0; i < list.size(); i++) {
            withSeq.add(list.get(i).at(head.firstSeq() + i));
          }
          sequenced.put(key, withSeq);
          if (head.leased()) {
            List<OutboxMessage> messages = withSeq.stream().map(OutboxRow::message).toList();
            leased.add(
                new LeasedHead(
                    new Lease(list.get(0).aggregateType(), list.get(0).aggregateId(), head.token()),
                    messages));
          }
        });
    List<OutboxRow> ordered = new ArrayList<>(harvested.size());
    for (OutboxRow row : harvested) {
      ordered.add(sequenced.get(row.aggregateKey()).remove(0));
    }
    if (insertOn != null) {
      rows.write(insertOn, ordered);
    }
    return new Written(ordered, leased);
  }
}
