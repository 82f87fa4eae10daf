package dev.outbox.kafka;

import dev.outbox.IncomingMessage;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxHandler;
import dev.outbox.inbox.InboxResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a Kafka consumer group, on a thread of its own, that consumes as an at-least-once
 * application does with an inbox: each poll is applied with {@link Inbox#applyAll} in one database
 * transaction at READ COMMITTED, the transaction commits, and only then are the poll's offsets
 * committed ({@code enable.auto.commit=false}).
 *
 * <ul>
 *   <li>A {@code GAP} result: the partition is sought back to the earliest offset of a gap in the
 *       poll, and no offset past it is committed, so that the record is polled again.
 *   <li>A transaction rolled back by the database (a deadlock, a serialization failure): every
 *       partition of the poll is sought back to the poll's first record, nothing is committed.
 *   <li>An offset commit refused by a rebalance: counted; the next owner reads the records again.
 * </ul>
 *
 * <p>{@link #crashAfterNextPoll()} makes the member die between its database commit and its offset
 * commit: it applies its next non-empty poll, commits the transaction and closes the consumer
 * without committing the offsets (auto-commit is off, so {@code close()} commits nothing). Its
 * partitions go to the other members, which read that poll's records again.
 */
final class InboxGroupConsumer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InboxGroupConsumer.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration STOP_WAIT = Duration.ofSeconds(15);

  private final String name;
  private final String topic;
  private final Map<String, Object> config;
  private final Inbox inbox;
  private final DataSource dataSource;
  private final InboxHandler handler;
  private final Thread thread;
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong gaps = new AtomicLong();
  private final AtomicLong rollbacks = new AtomicLong();
  private final AtomicLong refusedCommits = new AtomicLong();
  private volatile Set<TopicPartition> assignment = Set.of();
  private volatile boolean crashAfterNextPoll;
  private volatile boolean crashed;
  private volatile int lastPollAcknowledged;
  private volatile boolean stopping;
  private volatile Throwable failure;

  /**
   * A member, not started.
   *
   * @param name its name, in logs and its client id
   * @param bootstrapServers the broker
   * @param group the consumer group
   * @param topic the topic it subscribes to
   * @param inbox the inbox each poll goes through
   * @param dataSource where the transactions run
   * @param handler the inbox's handler
   */
  InboxGroupConsumer(
      String name,
      String bootstrapServers,
      String group,
      String topic,
      Inbox inbox,
      DataSource dataSource,
      InboxHandler handler) {
    this.name = name;
    this.topic = topic;
    this.inbox = inbox;
    this.dataSource = dataSource;
    this.handler = handler;
    this.config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            ConsumerConfig.GROUP_ID_CONFIG,
            group,
            ConsumerConfig.CLIENT_ID_CONFIG,
            group + "-" + name,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class.getName(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            "false",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            "50",
            // A member learns of a rebalance at its next heartbeat: 0.5 s rather than 3 s.
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
            "500");
    this.thread = new Thread(this::run, "inbox-consumer-" + name);
    thread.setDaemon(true);
  }

  /** Starts polling on its thread: the consumer joins the group. */
  void start() {
    thread.start();
  }

  /** Makes the member die after applying its next non-empty poll, before committing its offsets. */
  void crashAfterNextPoll() {
    crashAfterNextPoll = true;
  }

  /** Whether the member died as {@link #crashAfterNextPoll()} asked. */
  boolean crashed() {
    return crashed;
  }

  /** How many records of the poll it died after were applied or duplicates: B reads them again. */
  int crashPollAcknowledged() {
    return lastPollAcknowledged;
  }

  /** How many partitions it holds now. */
  int assigned() {
    return assignment.size();
  }

  /** Messages applied, in transactions that committed. */
  long applied() {
    return applied.get();
  }

  /** Duplicates, in transactions that committed. */
  long duplicates() {
    return duplicates.get();
  }

  /** Gaps, in transactions that committed. */
  long gaps() {
    return gaps.get();
  }

  /** Polls whose transaction the database rolled back. */
  long rollbacks() {
    return rollbacks.get();
  }

  /** Offset commits refused because the group was rebalancing. */
  long refusedCommits() {
    return refusedCommits.get();
  }

  /** Throws when the member's thread failed. */
  void checkHealthy() {
    if (failure != null) {
      throw new AssertionError("Consumer " + name + " failed: " + failure, failure);
    }
  }

  /**
   * Stops polling and waits for the thread, which closes the consumer; then {@link #checkHealthy}.
   */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    if (thread.isAlive()) {
      thread.join(STOP_WAIT.toMillis());
      if (thread.isAlive()) {
        throw new AssertionError("Consumer " + name + " did not stop within " + STOP_WAIT);
      }
    }
    checkHealthy();
  }

  @Override
  public String toString() {
    return String.format(
        "%s: %d applied, %d duplicates, %d gaps, %d rollbacks, %d refused offset commits",
        name, applied(), duplicates(), gaps(), rollbacks(), refusedCommits());
  }

  private void run() {
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config);
    try {
      consumer.subscribe(List.of(topic), new Assignment());
      while (!stopping && !crashed) {
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
        if (!records.isEmpty()) {
          handle(consumer, records);
        }
      }
    } catch (Throwable e) {
      LOG.error("Consumer {} failed", name, e);
      failure = e;
    } finally {
      if (!crashed) {
        consumer.close();
      }
    }
  }

  private void handle(KafkaConsumer<String, byte[]> consumer, ConsumerRecords<String, byte[]> poll)
      throws SQLException {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>(poll.count());
    poll.forEach(records::add);
    List<InboxResult> results;
    try {
      results = applyInOneTransaction(records);
    } catch (SQLTransientException e) {
      rollbacks.incrementAndGet();
      LOG.info("Consumer {}: the database rolled a poll back ({}); reading it again", name, e);
      poll.partitions().forEach(tp -> consumer.seek(tp, poll.records(tp).get(0).offset()));
      return;
    }
    Map<TopicPartition, Long> gapAt = tally(records, results);
    if (crashAfterNextPoll) {
      crashed = true;
      consumer.close(); // its offsets never committed
      LOG.info(
          "Consumer {} died after committing a poll of {} records to the database, before their"
              + " offsets",
          name,
          records.size());
      return;
    }
    commit(consumer, poll, gapAt);
  }

  private List<InboxResult> applyInOneTransaction(List<ConsumerRecord<String, byte[]>> records)
      throws SQLException {
    List<IncomingMessage> messages = records.stream().map(KafkaIncoming::of).toList();
    try (Connection connection = dataSource.getConnection()) {
      // The inbox README: under MariaDB's REPEATABLE READ, InnoDB's gap locks on missing
      // positions can make concurrent first messages deadlock.
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      connection.setAutoCommit(false);
      try {
        List<InboxResult> results = inbox.applyAll(connection, messages, handler);
        connection.commit();
        return results;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    }
  }

  /** Counts the outcomes of a committed poll; the earliest offset of a gap per partition. */
  private Map<TopicPartition, Long> tally(
      List<ConsumerRecord<String, byte[]>> records, List<InboxResult> results) {
    Map<TopicPartition, Long> gapAt = new HashMap<>();
    int acknowledged = 0;
    for (int i = 0; i < records.size(); i++) {
      ConsumerRecord<String, byte[]> record = records.get(i);
      switch (results.get(i).outcome()) {
        case APPLIED -> applied.incrementAndGet();
        case DUPLICATE -> duplicates.incrementAndGet();
        case GAP -> {
          gaps.incrementAndGet();
          gapAt.merge(
              new TopicPartition(record.topic(), record.partition()), record.offset(), Math::min);
        }
      }
      acknowledged += results.get(i).acknowledge() ? 1 : 0;
    }
    lastPollAcknowledged = acknowledged;
    return gapAt;
  }

  /** Commits each partition up to its last record, or to its first gap (sought back to). */
  private void commit(
      KafkaConsumer<String, byte[]> consumer,
      ConsumerRecords<String, byte[]> poll,
      Map<TopicPartition, Long> gapAt) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : poll.partitions()) {
      List<ConsumerRecord<String, byte[]>> records = poll.records(partition);
      Long gap = gapAt.get(partition);
      if (gap != null) {
        consumer.seek(partition, gap);
      }
      long next = gap != null ? gap : records.get(records.size() - 1).offset() + 1;
      offsets.put(partition, new OffsetAndMetadata(next));
    }
    try {
      consumer.commitSync(offsets);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      refusedCommits.incrementAndGet();
      LOG.info(
          "Consumer {}: offset commit refused ({}); the records come again", name, e.toString());
    }
  }

  /** Keeps {@link #assignment} for the test thread; runs on the consumer's thread. */
  private final class Assignment implements ConsumerRebalanceListener {

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Set<TopicPartition> kept = new HashSet<>(assignment);
      kept.removeAll(partitions);
      assignment = Set.copyOf(kept);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      Set<TopicPartition> held = new HashSet<>(assignment);
      held.addAll(partitions);
      assignment = Set.copyOf(held);
      LOG.info("Consumer {} holds partitions {}", name, partitionNumbers(assignment));
    }
  }

  private static List<Integer> partitionNumbers(Set<TopicPartition> partitions) {
    return partitions.stream().map(TopicPartition::partition).sorted().toList();
  }
}
