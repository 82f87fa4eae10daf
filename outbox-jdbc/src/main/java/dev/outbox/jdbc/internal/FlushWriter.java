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
 * then the rows with their seqs as multi-row inserts; on PostgreSQL both in one statement ({@link
 * Dialect#writeFlush}).
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

  private final Dialect dialect;
  private final HeadUpsert heads;
  private final OutboxRowWriter rows;

  /**
   * A writer on the database of a dialect.
   *
   * @param dialect the database and its tables
   */
  public FlushWriter(Dialect dialect) {
    this.dialect = dialect;
    this.heads = new HeadUpsert(dialect);
    this.rows = new OutboxRowWriter(dialect);
  }

  Written write(
      Connection connection, List<OutboxRow> harvested, CommitHandOver.LeaseReceiver receiver)
      throws SQLException {
    Flush flush = new Flush(harvested, receiver);
    return flush.sequenced(dialect.writeFlush(connection, flush, heads, rows));
  }

  /** The rows of one flush, grouped by aggregate in sorted key order: the order heads lock in. */
  static final class Flush {

    private final List<OutboxRow> harvested;
    private final Map<String, List<OutboxRow>> byAggregate = new TreeMap<>();
    private final List<HeadUpsert.Part> parts;
    private final String claimer;
    private final Duration lease;
    private Written sequenced;

    Flush(List<OutboxRow> harvested, CommitHandOver.LeaseReceiver receiver) {
      this.harvested = harvested;
      for (OutboxRow row : harvested) {
        byAggregate.computeIfAbsent(row.aggregateKey(), key -> new ArrayList<>()).add(row);
      }
      this.parts = new ArrayList<>(byAggregate.size());
      byAggregate.forEach(
          (key, list) ->
              parts.add(
                  new HeadUpsert.Part(
                      list.get(0).aggregateType(),
                      list.get(0).aggregateId(),
                      list.size(),
                      list.get(0).createdAt().toEpochMilli())));
      boolean leased = receiver != null && parts.size() <= MAX_LEASED_AGGREGATES;
      this.claimer = leased ? receiver.instanceId() : null;
      this.lease = leased ? receiver.lease() : null;
    }

    /** How many rows. */
    int size() {
      return harvested.size();
    }

    /** The flush's aggregates, in sorted key order. */
    List<HeadUpsert.Part> parts() {
      return parts;
    }

    /** The processor of this JVM to lease idle heads to, or {@code null}. */
    String claimer() {
      return claimer;
    }

    /** How long a lease at write lasts, or {@code null}. */
    Duration lease() {
      return lease;
    }

    /** The rows, each with how many rows of its aggregate follow it in place of its seq. */
    List<OutboxRow> rowsFromEnd() {
      Map<String, Integer> seen = new HashMap<>();
      List<OutboxRow> marked = new ArrayList<>(harvested.size());
      for (OutboxRow row : harvested) {
        int index = seen.merge(row.aggregateKey(), 1, Integer::sum) - 1;
        marked.add(row.at(byAggregate.get(row.aggregateKey()).size() - 1 - index, 0));
      }
      return marked;
    }

    /**
     * Each row with its seq, in the order harvested, and the heads leased to this JVM with their
     * messages; worked out once.
     *
     * @param written per aggregate key, where its messages went
     */
    Written sequenced(Map<String, HeadUpsert.Written> written) {
      if (sequenced == null) {
        sequenced = sequence(written);
      }
      return sequenced;
    }

    private Written sequence(Map<String, HeadUpsert.Written> written) {
      Map<String, List<OutboxRow>> withSeqs = new LinkedHashMap<>();
      List<LeasedHead> leased = new ArrayList<>();
      byAggregate.forEach(
          (key, list) -> {
            HeadUpsert.Written head = written.get(key);
            List<OutboxRow> withSeq = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
              withSeq.add(list.get(i).at(head.firstSeq() + i, head.epoch()));
            }
            withSeqs.put(key, withSeq);
            if (head.leased()) {
              // A head leased at write was idle: everything before the flush's first message was
              // delivered, and the last of it published is the head's published seq.
              List<OutboxMessage> messages = new ArrayList<>(withSeq.size());
              long prev = head.publishedSeq();
              for (OutboxRow row : withSeq) {
                messages.add(row.message(prev));
                prev = row.seq();
              }
              leased.add(
                  new LeasedHead(
                      new Lease(
                          list.get(0).aggregateType(), list.get(0).aggregateId(), head.token()),
                      messages));
            }
          });
      List<OutboxRow> ordered = new ArrayList<>(harvested.size());
      for (OutboxRow row : harvested) {
        ordered.add(withSeqs.get(row.aggregateKey()).remove(0));
      }
      return new Written(ordered, leased);
    }
  }
}
