package dev.outbox.benchmarks.internal;

import dev.outbox.IncomingMessage;
import dev.outbox.inbox.Inbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The consumer side (section {@code inbox}): what {@link Inbox#apply} adds to a consumer's
 * transactions, against the same transactions without it measured in the same rounds, and the size
 * of the positions table after many messages. On PostgreSQL, tables of the benchmark's own ({@link
 * InboxConsumer}), dropped afterwards.
 */
public final class InboxSuite {

  private final Scale scale;
  private final BenchDatabase db;
  private final Figures figures;

  /**
   * A suite.
   *
   * @param scale the counts
   * @param db PostgreSQL
   * @param figures where the figures go
   */
  public InboxSuite(Scale scale, BenchDatabase db, Figures figures) {
    this.scale = scale;
    this.db = db;
    this.figures = figures;
  }

  /** The overhead rounds, then the long stream through the inbox. */
  public void run() {
    try (InboxConsumer consumer = InboxConsumer.create(db, scale.aggregates())) {
      overhead(consumer);
      consumer.reset();
      stream(consumer);
    }
  }

  /**
   * A warm-up round (which holds every aggregate's first message), then measured rounds, each
   * applying its own slice of the stream with the handler alone and through the inbox, in turns;
   * then the statements per message on one more message of every aggregate, counted.
   */
  private void overhead(InboxConsumer consumer) {
    int round = scale.inboxRound();
    int aggregates = scale.aggregates();
    List<IncomingMessage> all = consumer.messages(0, (scale.runs() + 1) * round + aggregates);
    System.out.printf(
        Locale.ROOT,
        "  inbox overhead: %,d messages per round over %,d aggregates, %d per transaction,"
            + " warm-up and %d rounds%n",
        round,
        aggregates,
        InboxConsumer.BATCH,
        scale.runs());
    consumer.apply(all.subList(0, round), false);
    consumer.apply(all.subList(0, round), true);
    List<double[]> rounds = new ArrayList<>();
    for (int r = 1; r <= scale.runs(); r++) {
      List<IncomingMessage> slice = all.subList(r * round, (r + 1) * round);
      boolean aloneFirst = r % 2 == 1;
      long first = consumer.apply(slice, !aloneFirst);
      long second = consumer.apply(slice, aloneFirst);
      long alone = aloneFirst ? first : second;
      long with = aloneFirst ? second : first;
      double[] row = {
        round / (alone / 1e9),
        round / (with / 1e9),
        (double) with / alone,
        (with - alone) / 1e3 / round
      };
      System.out.printf(
          Locale.ROOT,
          "    round %d: handler alone %,.0f msgs/s, with the inbox %,.0f msgs/s: ratio %.3f,"
              + " %+.1f us per message%n",
          r,
          row[0],
          row[1],
          row[2],
          row[3]);
      rounds.add(row);
    }
    addOverheadFigures(rounds);
    countStatements(consumer, all.subList(all.size() - aggregates, all.size()));
  }

  private void addOverheadFigures(List<double[]> rounds) {
    String work =
        "the handler's UPDATE per message, a commit (fsync) per "
            + InboxConsumer.BATCH
            + ", 1 thread";
    figures.add(
        "inbox_handler_alone_msgs_per_s",
        ThroughputSuite.median(rounds, r -> r[0]),
        "msgs/s",
        "",
        "the floor: " + work);
    figures.add(
        "inbox_with_inbox_msgs_per_s",
        ThroughputSuite.median(rounds, r -> r[1]),
        "msgs/s",
        "",
        "the same transactions through Inbox.apply");
    figures.add(
        "inbox_overhead_ratio",
        ThroughputSuite.median(rounds, r -> r[2]),
        "ratio",
        "<= 1.2",
        "time with the inbox / time with the handler alone, median of the rounds' ratios");
    figures.add(
        "inbox_us_per_message",
        ThroughputSuite.median(rounds, r -> r[3]),
        "us",
        "",
        "diagnostic: what the inbox adds per message (time with minus time without)");
  }

  /** Statements and commits per message of each kind, on one more message of every aggregate. */
  private void countStatements(InboxConsumer consumer, List<IncomingMessage> next) {
    StatementCounter alone = new StatementCounter();
    consumer.count(next, false, alone);
    StatementCounter with = new StatementCounter();
    consumer.count(next, true, with);
    double perMessage = (double) with.statements() / next.size();
    double alonePerMessage = (double) alone.statements() / next.size();
    System.out.printf(
        Locale.ROOT,
        "    counted on %,d messages (the next of each aggregate): %.2f statements per message"
            + " with the handler alone, %.2f with the inbox; %d and %d commits%n",
        next.size(),
        alonePerMessage,
        perMessage,
        alone.commits(),
        with.commits());
    figures.add(
        "inbox_statements_per_message",
        perMessage,
        "statements",
        "",
        String.format(
            Locale.ROOT,
            "diagnostic: round trips per message through the inbox (%.2f with the handler alone)",
            alonePerMessage));
  }

  /** The long stream through the inbox, then the rows and size of its tables. */
  private void stream(InboxConsumer consumer) {
    long count = scale.inboxMessages();
    System.out.printf(
        Locale.ROOT,
        "  inbox stream: %,d messages over %,d aggregates through the inbox, capped at %d s%n",
        count,
        scale.aggregates(),
        scale.inboxCap().toSeconds());
    InboxConsumer.Run run = consumer.stream(count, scale.inboxCap());
    long positions = db.count("SELECT count(*) FROM " + InboxConsumer.POSITIONS);
    long ids = db.count("SELECT count(*) FROM " + InboxConsumer.RECEIVED_IDS);
    long bytes = db.count("SELECT pg_total_relation_size('" + InboxConsumer.POSITIONS + "')");
    long idBytes = db.count("SELECT pg_total_relation_size('" + InboxConsumer.RECEIVED_IDS + "')");
    long applied = db.count("SELECT sum(applied) FROM " + InboxConsumer.EFFECTS);
    System.out.printf(
        Locale.ROOT,
        "    applied %,d messages in %.1f s of transactions (%,.0f msgs/s); the handler counted"
            + " %,d; positions %,d rows in %,d bytes, received ids %,d rows in %,d bytes%n",
        run.messages(),
        run.seconds(),
        run.rate(),
        applied,
        positions,
        bytes,
        ids,
        idBytes);
    String what =
        (run.capped() ? "STOPPED at the cap of " + scale.inboxCap().toSeconds() + " s: " : "")
            + String.format(Locale.ROOT, "after %,d messages", run.messages())
            + (scale.quick() ? " (quick: not 1,000,000)" : "");
    figures.add(
        "inbox_rows_after_1m_messages",
        positions,
        "rows",
        String.format(Locale.ROOT, "%,d", scale.aggregates()),
        "one position per aggregate, " + what);
    figures.add(
        "inbox_received_ids_rows_after_1m_messages",
        ids,
        "rows",
        "0",
        "messages with seq write no id, " + what);
    figures.add(
        "inbox_1m_msgs_per_s",
        run.rate(),
        "msgs/s",
        "",
        "the same run: " + InboxConsumer.BATCH + " messages per transaction, 1 thread");
    figures.add(
        "inbox_positions_bytes_after_1m_messages",
        bytes,
        "bytes",
        "",
        "pg_total_relation_size of the positions table (heap, primary key), " + what);
  }
}
