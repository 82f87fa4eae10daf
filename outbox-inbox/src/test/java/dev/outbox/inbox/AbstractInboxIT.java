package dev.outbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.outbox.DomainEvent;
import dev.outbox.IncomingMessage;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.WireHeaders;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox on a real database: what it answers, what the handler's effects become, gaps, epochs,
 * dead-letter skips, failures, de-duplication by id, two consumers at once, a handler that also
 * sends through the outbox, the cleanup and the refusals. Each database runs it through a subclass;
 * the tables are this class's own and dropped afterwards. Each test uses a source of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractInboxIT {

  record InvoiceRaised(String order) implements DomainEvent {}

  private final TestDatabase database;
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String positionsTable = "ibx_pos_" + suffix;
  private final String idsTable = "ibx_ids_" + suffix;
  private final String countersTable = "ibx_cnt_" + suffix;
  private final String outboxTable = "ibx_out_" + suffix;
  private final String deadLetterTable = "ibx_dl_" + suffix;
  private DataSource dataSource;
  private String source;

  AbstractInboxIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void createTables() throws SQLException {
    database.assumeReachable();
    dataSource = database.dataSource();
    Inbox.create(dataSource, options().source("setup").createSchema(true).build()).close();
    execute(
        "CREATE TABLE "
            + countersTable
            + " (counter_key VARCHAR(200) PRIMARY KEY, applied INT NOT NULL,"
            + " seqs VARCHAR(2000) NOT NULL)");
  }

  @AfterAll
  void dropTables() throws SQLException {
    if (dataSource != null) {
      for (String table : List.of(positionsTable, idsTable, countersTable)) {
        execute("DROP TABLE IF EXISTS " + table);
      }
      OutboxTable.drop(dataSource, outboxTable, deadLetterTable);
    }
  }

  @BeforeEach
  void sourceOfTheTest(TestInfo test) {
    source = test.getTestMethod().orElseThrow().getName();
  }

  // ---- applied, duplicate, gap ------------------------------------------------------------

  @Test
  void theNextMessageIsAppliedAndItsRedeliveryIsADuplicate() throws SQLException {
    List<InboxResult> reported = new CopyOnWriteArrayList<>();
    InboxListener listener =
        new InboxListener() {
          @Override
          public void applied(InboxResult result) {
            reported.add(result);
          }

          @Override
          public void duplicate(InboxResult result) {
            reported.add(result);
          }
        };
    Inbox inbox = Inbox.create(dataSource, options().build(), listener);
    IncomingMessage first = message("Order", "o-1", 1, 1, 0);
    IncomingMessage second = message("Order", "o-1", 1, 2, 1);

    InboxResult applied = inbox.receive(first, counting());
    InboxResult duplicate = inbox.receive(first, counting());
    inbox.receive(second, counting());

    assertThat(applied)
        .isEqualTo(
            new InboxResult(InboxOutcome.APPLIED, source, "Order", "o-1", 0, 0, 1, 1, first.id()));
    assertThat(duplicate)
        .isEqualTo(
            new InboxResult(
                InboxOutcome.DUPLICATE, source, "Order", "o-1", 1, 1, 1, 1, first.id()));
    assertThat(duplicate.acknowledge()).isTrue();
    assertThat(reported)
        .extracting(InboxResult::outcome, InboxResult::seqBefore, InboxResult::seqAfter)
        .containsExactly(
            tuple(InboxOutcome.APPLIED, 0L, 1L),
            tuple(InboxOutcome.DUPLICATE, 1L, 1L),
            tuple(InboxOutcome.APPLIED, 1L, 2L));
    assertThat(counter("o-1")).isEqualTo(",1,2");
    assertThat(inbox.positions(10))
        .extracting(InboxPosition::aggregateId, InboxPosition::epoch, InboxPosition::appliedSeq)
        .containsExactly(tuple("o-1", 1L, 2L));
  }

  @Test
  void aMessageBeyondAGapWaitsUntilTheMissingMessageIsApplied() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    IncomingMessage third = message("Order", "o-2", 1, 3, 2);
    inbox.receive(message("Order", "o-2", 1, 1, 0), counting());

    InboxResult gap = inbox.receive(third, counting());
    InboxPosition parked = inbox.gaps(10).get(0);
    InboxResult again = inbox.receive(third, counting());

    assertThat(gap.outcome()).isEqualTo(InboxOutcome.GAP);
    assertThat(gap.acknowledge()).isFalse();
    assertThat(again.outcome()).isEqualTo(InboxOutcome.GAP);
    assertThat(counter("o-2")).isEqualTo(",1");
    assertThat(parked.aggregateId()).isEqualTo("o-2");
    assertThat(parked.appliedSeq()).isEqualTo(1);
    assertThat(parked.gapSeq()).isEqualTo(3);
    assertThat(parked.gapSince()).isNotNull();
    assertThat(inbox.gaps(10).get(0).gapSince()).isEqualTo(parked.gapSince());

    assertThat(inbox.receive(message("Order", "o-2", 1, 2, 1), counting()).applied()).isTrue();
    assertThat(inbox.gaps(10)).as("seq 3 still waits for its redelivery").hasSize(1);
    assertThat(inbox.receive(third, counting()).applied()).isTrue();
    assertThat(inbox.gaps(10)).isEmpty();
    assertThat(counter("o-2")).isEqualTo(",1,2,3");
  }

  @Test
  void aMessageOfAnAggregateNeverSeenThatIsNotFirstIsAGapRecordedOnANewPosition()
      throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());

    InboxResult gap = inbox.receive(message("Order", "o-3", 4, 2, 1), counting());

    assertThat(gap.outcome()).isEqualTo(InboxOutcome.GAP);
    assertThat(inbox.gaps(10))
        .extracting(
            InboxPosition::epoch,
            InboxPosition::appliedSeq,
            InboxPosition::gapEpoch,
            InboxPosition::gapSeq)
        .containsExactly(tuple(0L, 0L, 4L, 2L));
    assertThat(inbox.receive(message("Order", "o-3", 4, 1, 0), counting()).applied()).isTrue();
    assertThat(counter("o-3")).isEqualTo(",1");
  }

  @Test
  void seqsSkippedByDeadLettersAreNotWaitedFor() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    inbox.receive(message("Order", "o-4", 1, 1, 0), counting());

    InboxResult skipped = inbox.receive(message("Order", "o-4", 1, 4, 1), counting());
    InboxResult late = inbox.receive(message("Order", "o-4", 1, 2, 1), counting());

    assertThat(skipped)
        .extracting(InboxResult::outcome, InboxResult::seqBefore, InboxResult::seqAfter)
        .containsExactly(InboxOutcome.APPLIED, 1L, 4L);
    assertThat(late.outcome()).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(counter("o-4")).isEqualTo(",1,4");
  }

  @Test
  void aNewEpochBeginsTheStreamAgainAndTheOldEpochBecomesDuplicates() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    inbox.receive(message("Order", "o-5", 1, 1, 0), counting());
    inbox.receive(message("Order", "o-5", 1, 2, 1), counting());

    InboxResult restarted = inbox.receive(message("Order", "o-5", 2, 1, 0), counting());
    InboxResult old = inbox.receive(message("Order", "o-5", 1, 3, 2), counting());
    InboxResult next = inbox.receive(message("Order", "o-5", 2, 2, 1), counting());
    InboxResult notFirst = inbox.receive(message("Order", "o-5", 3, 2, 1), counting());

    assertThat(restarted)
        .extracting(
            InboxResult::outcome,
            InboxResult::epochBefore,
            InboxResult::seqBefore,
            InboxResult::epochAfter,
            InboxResult::seqAfter)
        .containsExactly(InboxOutcome.APPLIED, 1L, 2L, 2L, 1L);
    assertThat(old.outcome()).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(next.applied()).isTrue();
    assertThat(notFirst.outcome()).isEqualTo(InboxOutcome.GAP);
    assertThat(counter("o-5")).isEqualTo(",1,2,1,2");
  }

  @Test
  void gapPolicyApplyRunsTheHandlerOverTheGap() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().gapPolicy(GapPolicy.APPLY).build());
    inbox.receive(message("Order", "o-6", 1, 1, 0), counting());

    InboxResult result = inbox.receive(message("Order", "o-6", 1, 5, 4), counting());

    assertThat(result)
        .extracting(InboxResult::outcome, InboxResult::seqBefore, InboxResult::seqAfter)
        .containsExactly(InboxOutcome.APPLIED, 1L, 5L);
    assertThat(inbox.receive(message("Order", "o-6", 1, 3, 2), counting()).outcome())
        .isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(counter("o-6")).isEqualTo(",1,5");
  }

  @Test
  void gapPolicyFailThrowsNamingTheGapAndWritesNothing() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().gapPolicy(GapPolicy.FAIL).build());
    inbox.receive(message("Order", "o-7", 1, 1, 0), counting());
    IncomingMessage beyond = message("Order", "o-7", 1, 4, 3);

    assertThatThrownBy(() -> inbox.receive(beyond, counting()))
        .isInstanceOfSatisfying(
            InboxGapException.class,
            e -> {
              assertThat(e.source()).isEqualTo(source);
              assertThat(e.found().aggregateId()).isEqualTo("o-7");
              assertThat(e.found().seqBefore()).isEqualTo(1);
              assertThat(e.messageSeq()).isEqualTo(4);
              assertThat(e.messagePrevSeq()).isEqualTo(3);
            })
        .hasMessageContaining("Inbox '" + source + "'")
        .hasMessageContaining("Order/o-7 is epoch 1, seq 1")
        .hasMessageContaining(beyond.id())
        .hasMessageContaining("after seq 1 up to seq 3")
        .hasMessageContaining("gapPolicy is FAIL");
    assertThat(inbox.gaps(10)).isEmpty();
    assertThat(counter("o-7")).isEqualTo(",1");
  }

  // ---- failures and transactions ----------------------------------------------------------

  @Test
  void aHandlerThatThrowsLeavesThePositionAndTheRedeliveryAppliesTheMessage() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    inbox.receive(message("Order", "o-8", 1, 1, 0), counting());
    IncomingMessage second = message("Order", "o-8", 1, 2, 1);
    IllegalStateException refusal = new IllegalStateException("the ledger is closed");

    assertThatThrownBy(
            () ->
                inbox.receive(
                    second,
                    (connection, m) -> {
                      counting().handle(connection, m);
                      throw refusal;
                    }))
        .isSameAs(refusal);
    assertThat(inbox.positions(10)).extracting(InboxPosition::appliedSeq).containsExactly(1L);
    assertThat(counter("o-8")).isEqualTo(",1");

    assertThat(inbox.receive(second, counting()).applied()).isTrue();
    assertThat(counter("o-8")).isEqualTo(",1,2");
  }

  @Test
  void applyRunsInTheCallersTransactionAndARollbackTakesTheMessageBack() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    IncomingMessage first = message("Order", "o-9", 1, 1, 0);
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      assertThat(inbox.apply(connection, first, counting()).applied()).isTrue();
      connection.rollback();
      assertThat(inbox.positions(10)).isEmpty();
      assertThat(counter("o-9")).isEmpty();

      assertThat(inbox.apply(connection, first, counting()).applied()).isTrue();
      connection.commit();
      connection.setAutoCommit(true);
    }
    assertThat(counter("o-9")).isEqualTo(",1");
  }

  @Test
  void aConnectionInAutoCommitModeIsRefused() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    try (Connection connection = dataSource.getConnection()) {
      assertThatThrownBy(
              () -> inbox.apply(connection, message("Order", "o-10", 1, 1, 0), counting()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit mode")
          .hasMessageContaining("setAutoCommit(false)")
          .hasMessageContaining("Inbox.receive");
    }
    assertThat(inbox.positions(10)).isEmpty();
    assertThat(counter("o-10")).isEmpty();
  }

  @Test
  void aHandlerThatSendsThroughTheOutboxCommitsAndRollsBackWithThePosition() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    JdbcOutbox outbox =
        JdbcOutbox.create(
            dataSource,
            OutboxOptions.builder()
                .outboxTable(outboxTable)
                .deadLetterTable(deadLetterTable)
                .createSchema(true)
                .build());
    IncomingMessage paid = message("Order", "o-11", 1, 1, 0);
    InboxHandler invoice =
        (connection, m) ->
            outbox.send(connection, "Invoice", "i-" + m.aggregateId(), new InvoiceRaised("o-11"));

    assertThatThrownBy(
            () ->
                inbox.receive(
                    paid,
                    (connection, m) -> {
                      invoice.handle(connection, m);
                      throw new IllegalStateException("no invoice today");
                    }))
        .hasMessage("no invoice today");
    assertThat(new OutboxTable(dataSource, outboxTable).rows()).isEmpty();
    assertThat(inbox.positions(10)).isEmpty();

    assertThat(inbox.receive(paid, invoice).applied()).isTrue();
    assertThat(inbox.receive(paid, invoice).outcome()).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(new OutboxTable(dataSource, outboxTable).rows())
        .extracting(OutboxTable.Row::aggregateType, OutboxTable.Row::aggregateId)
        .containsExactly(tuple("Invoice", "i-o-11"));
  }

  // ---- without seq ------------------------------------------------------------------------

  @Test
  void messagesWithoutSeqAreDeDuplicatedByTheirId() throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    IncomingMessage foreign =
        IncomingMessage.of(Map.of("type", "Refund"), "{}".getBytes(), "broker-" + suffix);
    IncomingMessage other = IncomingMessage.of(Map.of(), "{}".getBytes(), "broker-other-" + suffix);
    counterRow("no-seq");
    InboxHandler handler = (connection, m) -> bump(connection, "no-seq", m.id());

    InboxResult first = inbox.receive(foreign, handler);
    InboxResult again = inbox.receive(foreign, handler);
    InboxResult second = inbox.receive(other, handler);

    assertThat(first)
        .isEqualTo(
            new InboxResult(
                InboxOutcome.APPLIED, source, null, null, 0, 0, 0, 0, "broker-" + suffix));
    assertThat(again.outcome()).isEqualTo(InboxOutcome.DUPLICATE);
    assertThat(second.applied()).isTrue();
    assertThat(counter("no-seq")).isEqualTo(",broker-" + suffix + ",broker-other-" + suffix);
    assertThat(inbox.positions(10)).isEmpty();
  }

  // ---- two consumers ----------------------------------------------------------------------

  /**
   * Two consumers (two threads, two connections: one through {@link Inbox#receive}, one through
   * {@link Inbox#apply} in its own transactions) get every message of 20 aggregates, shuffled, with
   * extra redeliveries, and put back every gap to redeliver it later. Seq 5 of each aggregate was
   * dead-lettered (6 follows 4).
   */
  @Test
  void twoConsumersApplyEachMessageExactlyOnceAndInSeqOrder() throws Exception {
    Inbox inbox = Inbox.create(dataSource, options().build());
    List<IncomingMessage> stream = streamWithADeadLetter("c-");
    ExecutorService consumers = Executors.newFixedThreadPool(2);
    try {
      Future<Tally> viaReceive =
          consumers.submit(() -> consume(deliveries(stream, 1), inbox::receive));
      Future<Tally> viaApply = consumers.submit(() -> consumeInTransactions(inbox, stream));
      Tally one = viaReceive.get(25, TimeUnit.SECONDS);
      Tally two = viaApply.get(25, TimeUnit.SECONDS);
      assertThat(one.applied() + two.applied()).isEqualTo(stream.size());
      assertThat(one.duplicates() + two.duplicates())
          .as("each consumer got every message, and more")
          .isGreaterThan(stream.size());
    } finally {
      consumers.shutdownNow();
    }
    assertEveryStreamAppliedOnceInOrder("c-");
    assertThat(appliedCounts()).containsOnly(9);
    assertThat(inbox.positions(100))
        .hasSize(STREAMS)
        .allSatisfy(position -> assertThat(position.appliedSeq()).isEqualTo(10));
  }

  /** How many aggregates {@link #streamWithADeadLetter} makes streams of. */
  private static final int STREAMS = 20;

  /**
   * The messages of {@value #STREAMS} aggregates ({@code prefix0}, {@code prefix1}, ...), seqs 1 to
   * 10 each in epoch 1, seq 5 dead-lettered (6 follows 4), with a counter row each.
   */
  private List<IncomingMessage> streamWithADeadLetter(String prefix) throws SQLException {
    List<IncomingMessage> stream = new ArrayList<>();
    for (int a = 0; a < STREAMS; a++) {
      String id = prefix + a;
      counterRow(id);
      for (long seq = 1; seq <= 10; seq++) {
        if (seq != 5) {
          stream.add(message("Order", id, 1, seq, seq == 6 ? 4 : seq - 1));
        }
      }
    }
    return stream;
  }

  /** Each stream of {@link #streamWithADeadLetter} applied once, in seq order, seq 5 skipped. */
  private void assertEveryStreamAppliedOnceInOrder(String prefix) throws SQLException {
    for (int a = 0; a < STREAMS; a++) {
      assertThat(counter(prefix + a)).as(prefix + a).isEqualTo(",1,2,3,4,6,7,8,9,10");
    }
  }

  /** The consumer on {@link Inbox#apply}: a connection of its own, a transaction per message. */
  private Tally consumeInTransactions(Inbox inbox, List<IncomingMessage> stream) throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      return consume(
          deliveries(stream, 2),
          (message, handler) -> {
            try {
              InboxResult result = inbox.apply(connection, message, handler);
              connection.commit();
              return result;
            } catch (SQLException | RuntimeException e) {
              connection.rollback();
              throw e;
            }
          });
    }
  }

  /** One way of consuming a message. */
  @FunctionalInterface
  interface Consumer {
    InboxResult consume(IncomingMessage message, InboxHandler handler) throws Exception;
  }

  /** What one consumer's deliveries came to. */
  record Tally(int applied, int duplicates) {}

  /** Delivers until every message is applied or a duplicate; a gap goes to the back. */
  private Tally consume(Deque<IncomingMessage> queue, Consumer consumer) throws Exception {
    int applied = 0;
    int duplicates = 0;
    while (!queue.isEmpty()) {
      IncomingMessage message = queue.poll();
      InboxResult result = consumer.consume(message, counting());
      switch (result.outcome()) {
        case GAP -> queue.add(message);
        case APPLIED -> applied++;
        case DUPLICATE -> duplicates++;
      }
    }
    return new Tally(applied, duplicates);
  }

  /** Every message once, a third of them twice more, shuffled. */
  private static Deque<IncomingMessage> deliveries(List<IncomingMessage> stream, long seed) {
    Random random = new Random(seed);
    List<IncomingMessage> deliveries = new ArrayList<>(stream);
    for (IncomingMessage message : stream) {
      if (random.nextInt(3) == 0) {
        deliveries.add(message);
        deliveries.add(message);
      }
    }
    Collections.shuffle(deliveries, random);
    return new ArrayDeque<>(deliveries);
  }

  // ---- batches ----------------------------------------------------------------------------

  @Test
  void aBatchDecidesEachMessageAsItsPredecessorsMovedThePositionAndWritesTheGapItLeaves()
      throws SQLException {
    List<InboxResult> reported = new CopyOnWriteArrayList<>();
    InboxListener listener =
        new InboxListener() {
          @Override
          public void applied(InboxResult result) {
            reported.add(result);
          }

          @Override
          public void duplicate(InboxResult result) {
            reported.add(result);
          }

          @Override
          public void gap(InboxResult result) {
            reported.add(result);
          }
        };
    Inbox inbox = Inbox.create(dataSource, options().build(), listener);
    counterRow("b-1");

    List<InboxResult> first =
        inbox.receiveAll(
            List.of(
                message("Order", "b-1", 7, 1, 0),
                message("Order", "b-1", 7, 2, 1),
                message("Order", "b-1", 7, 2, 1),
                message("Order", "b-1", 7, 4, 3),
                message("Order", "b-1", 7, 3, 2)),
            counting());

    assertThat(first)
        .extracting(InboxResult::outcome)
        .containsExactly(
            InboxOutcome.APPLIED,
            InboxOutcome.APPLIED,
            InboxOutcome.DUPLICATE,
            InboxOutcome.GAP,
            InboxOutcome.APPLIED);
    assertThat(counter("b-1")).isEqualTo(",1,2,3");
    assertThat(inbox.gaps(10))
        .as("seq 4 came before 3 and waits, recorded with the batch")
        .singleElement()
        .satisfies(
            position -> {
              assertThat(position.appliedSeq()).isEqualTo(3);
              assertThat(position.gapSeq()).isEqualTo(4);
            });

    List<InboxResult> second =
        inbox.receiveAll(
            List.of(message("Order", "b-1", 7, 4, 3), message("Order", "b-1", 7, 5, 4)),
            counting());

    assertThat(second).extracting(InboxResult::outcome).containsOnly(InboxOutcome.APPLIED);
    assertThat(counter("b-1")).isEqualTo(",1,2,3,4,5");
    assertThat(inbox.gaps(10)).isEmpty();
    assertThat(reported).hasSize(7);
  }

  @Test
  void aBatchWhoseHandlerThrowsLeavesEveryPositionAndIsAppliedWholeOnRedelivery()
      throws SQLException {
    Inbox inbox = Inbox.create(dataSource, options().build());
    counterRow("b-2");
    counterRow("b-3");
    List<IncomingMessage> poll =
        List.of(
            message("Order", "b-2", 1, 1, 0),
            message("Order", "b-3", 1, 1, 0),
            message("Order", "b-2", 1, 2, 1));
    InboxHandler counting = counting();

    assertThatThrownBy(
            () ->
                inbox.receiveAll(
                    poll,
                    (connection, message) -> {
                      counting.handle(connection, message);
                      if (message.seq() == 2) {
                        throw new IllegalStateException("handler failed");
                      }
                    }))
        .hasMessage("handler failed");
    assertThat(counter("b-2")).isEmpty();
    assertThat(inbox.positions(10)).isEmpty();

    assertThat(inbox.receiveAll(poll, counting))
        .extracting(InboxResult::outcome)
        .containsOnly(InboxOutcome.APPLIED);
    assertThat(counter("b-2")).isEqualTo(",1,2");
    assertThat(counter("b-3")).isEqualTo(",1");
  }

  @Test
  void twoConsumersOfBatchesApplyEachMessageExactlyOnceAndInSeqOrder() throws Exception {
    Inbox inbox = Inbox.create(dataSource, options().build());
    List<IncomingMessage> stream = streamWithADeadLetter("bc-");
    ExecutorService consumers = Executors.newFixedThreadPool(2);
    try {
      Future<Tally> one = consumers.submit(() -> consumeInBatches(inbox, deliveries(stream, 3)));
      Future<Tally> two = consumers.submit(() -> consumeInBatches(inbox, deliveries(stream, 4)));
      Tally first = one.get(25, TimeUnit.SECONDS);
      Tally second = two.get(25, TimeUnit.SECONDS);
      assertThat(first.applied() + second.applied()).isEqualTo(stream.size());
    } finally {
      consumers.shutdownNow();
    }
    assertEveryStreamAppliedOnceInOrder("bc-");
  }

  /**
   * Takes polls of up to seven deliveries and applies each poll in one transaction; the gaps of a
   * poll go to the back, and a poll the database refused (a deadlock between the two consumers'
   * locks) is delivered again whole.
   */
  private Tally consumeInBatches(Inbox inbox, Deque<IncomingMessage> queue) {
    int applied = 0;
    int duplicates = 0;
    for (int polls = 0; !queue.isEmpty() && polls < 10_000; polls++) {
      List<IncomingMessage> poll = new ArrayList<>();
      while (poll.size() < 7 && !queue.isEmpty()) {
        poll.add(queue.poll());
      }
      List<InboxResult> results;
      try {
        results = inbox.receiveAll(poll, counting());
      } catch (OutboxException e) {
        queue.addAll(poll);
        continue;
      }
      for (int i = 0; i < poll.size(); i++) {
        switch (results.get(i).outcome()) {
          case GAP -> queue.add(poll.get(i));
          case APPLIED -> applied++;
          case DUPLICATE -> duplicates++;
        }
      }
    }
    assertThat(queue).as("every delivery settled").isEmpty();
    return new Tally(applied, duplicates);
  }

  // ---- cleanup ----------------------------------------------------------------------------

  @Test
  void cleanupRemovesIdlePositionsAndOldIdsButKeepsAPositionWithAGap() throws SQLException {
    Inbox inbox =
        Inbox.create(
            dataSource,
            options()
                .positionRetention(Duration.ofMillis(1))
                .idRetention(Duration.ofMillis(1))
                .cleanupBatchSize(2)
                .build());
    for (long a = 0; a < 5; a++) {
      inbox.receive(message("Order", "idle-" + a, 1, 1, 0), (connection, m) -> {});
    }
    inbox.receive(message("Order", "waiting", 1, 3, 2), (connection, m) -> {});
    for (int i = 0; i < 3; i++) {
      inbox.receive(
          IncomingMessage.of(Map.of(), new byte[0], "old-" + i + suffix), (connection, m) -> {});
    }
    List<InboxCleanup> runs = new CopyOnWriteArrayList<>();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              runs.add(inbox.cleanUp());
              return runs.stream().mapToInt(InboxCleanup::positions).sum() == 5
                  && runs.stream().mapToInt(InboxCleanup::receivedIds).sum() == 3;
            });

    assertThat(inbox.positions(10))
        .extracting(InboxPosition::aggregateId, InboxPosition::hasGap)
        .containsExactly(tuple("waiting", true));
    assertThat(receivedIds()).isZero();
  }

  @Test
  void startRunsTheCleanupInTheBackgroundUntilClose() throws SQLException {
    Inbox inbox =
        Inbox.create(
            dataSource,
            options()
                .positionRetention(Duration.ofMillis(1))
                .cleanupInterval(Duration.ofMillis(50))
                .build());
    inbox.receive(message("Order", "bg-1", 1, 1, 0), (connection, m) -> {});

    inbox.start();
    inbox.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> inbox.positions(10).isEmpty());
    inbox.close();
    inbox.close();

    assertThatThrownBy(inbox::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(inbox.receive(message("Order", "bg-2", 1, 1, 0), (c, m) -> {}).applied()).isTrue();
  }

  // ---- refusals ---------------------------------------------------------------------------

  @Test
  void aMissingTableIsNamedWithTheDatabaseAndTheMigrationToRun() {
    String missing = "ibx_missing_" + suffix;

    assertThatThrownBy(() -> Inbox.create(dataSource, options().positionsTable(missing).build()))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("The inbox table '" + missing + "' does not exist")
        .hasMessageContaining(
            "classpath:db/inbox/"
                + database.name().toLowerCase(Locale.ROOT)
                + "/V1__inbox_tables.sql")
        .hasMessageContaining("createSchema(true)");
  }

  // ---- helpers ----------------------------------------------------------------------------

  private InboxOptions.Builder options() {
    return InboxOptions.builder()
        .source(source == null ? "setup" : source)
        .positionsTable(positionsTable)
        .receivedIdsTable(idsTable);
  }

  /** A message of this outbox, as a consumer receives it. */
  private static IncomingMessage message(
      String aggregateType, String aggregateId, long epoch, long seq, long prevSeq) {
    Map<String, String> headers = new HashMap<>();
    headers.put(WireHeaders.MESSAGE_ID, UUID.randomUUID().toString());
    headers.put(WireHeaders.EVENT_TYPE, "OrderChanged");
    headers.put(WireHeaders.AGGREGATE_TYPE, aggregateType);
    headers.put(WireHeaders.AGGREGATE_ID, aggregateId);
    headers.put(WireHeaders.SEQ, Long.toString(seq));
    headers.put(WireHeaders.EPOCH, Long.toString(epoch));
    headers.put(WireHeaders.PREV_SEQ, Long.toString(prevSeq));
    return IncomingMessage.of(headers, "{}".getBytes(), null);
  }

  /** A handler whose effect is counted on the aggregate's counter row, on its connection. */
  private InboxHandler counting() {
    return (connection, message) -> {
      if (counter(connection, message.aggregateId()) == null) {
        counterRow(connection, message.aggregateId());
      }
      bump(connection, message.aggregateId(), Long.toString(message.seq()));
    };
  }

  private void bump(Connection connection, String key, String seq) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE "
                + countersTable
                + " SET applied = applied + 1, seqs = CONCAT(seqs, ?) WHERE counter_key = ?")) {
      update.setString(1, "," + seq);
      update.setString(2, source + '/' + key);
      assertThat(update.executeUpdate()).isEqualTo(1);
    }
  }

  private void counterRow(String key) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      counterRow(connection, key);
    }
  }

  private void counterRow(Connection connection, String key) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO " + countersTable + " (counter_key, applied, seqs) VALUES (?, 0, '')")) {
      insert.setString(1, source + '/' + key);
      insert.executeUpdate();
    }
  }

  /** The seqs the handler applied to an aggregate, in order, each after a comma; "" for none. */
  private String counter(String key) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      String seqs = counter(connection, key);
      return seqs == null ? "" : seqs;
    }
  }

  private String counter(Connection connection, String key) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT seqs FROM " + countersTable + " WHERE counter_key = ?")) {
      select.setString(1, source + '/' + key);
      try (ResultSet row = select.executeQuery()) {
        return row.next() ? row.getString(1) : null;
      }
    }
  }

  /** How often the handler ran, per counter of this test's source. */
  private List<Integer> appliedCounts() throws SQLException {
    List<Integer> counts = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT applied FROM " + countersTable + " WHERE counter_key LIKE ?")) {
      select.setString(1, source + "/%");
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          counts.add(rows.getInt(1));
        }
      }
    }
    return counts;
  }

  private long receivedIds() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select =
            connection.prepareStatement("SELECT COUNT(*) FROM " + idsTable + " WHERE source = ?")) {
      select.setString(1, source);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }

  private void execute(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
