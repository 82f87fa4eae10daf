package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxPosition;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.mariadb.jdbc.MariaDbDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 29: two consumers of one Kafka group apply every poll through the inbox on MariaDB while
 * the group rebalances twice, once when the second consumer joins and once when the first dies
 * between its database commit and its offset commit, and while the producer sends a third of the
 * stream a second time (the outbox is at least once). The handler's effect counts every distinct
 * message exactly once, in seq order per aggregate.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(90)
class KafkaInboxRebalanceIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaInboxRebalanceIT.class);

  private static final String MARIADB_URL =
      "jdbc:mariadb://127.0.0.1:3306/test?user=root&connectTimeout=3000";
  private static final String MARIADB_HOW_TO_START =
      "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"
          + " (database test, user root, empty password)";

  private static final int PARTITIONS = 6;
  private static final int AGGREGATES = 60;
  private static final int MESSAGES_PER_AGGREGATE = 30;

  /** Seqs published before the second consumer joins; the rest after. */
  private static final int SEQS_BEFORE_REBALANCE = 10;

  private static final long EPOCH = 1_764_000_000_000L;
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(30);

  private EmbeddedKafka kafka;
  private DataSource dataSource;

  @BeforeAll
  void startServers() throws SQLException {
    RequiredServer.assumeReachable("MariaDB", "127.0.0.1", 3306, MARIADB_HOW_TO_START);
    dataSource = new MariaDbDataSource(MARIADB_URL);
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void aRebalanceAndAConsumerDeadBeforeItsOffsetCommitApplyEachDistinctMessageOnceInSeqOrder()
      throws Exception {
    long start = System.nanoTime();
    String topic = TestMessages.aggregateType("inbox-rebalance");
    String group = topic + "-consumers";
    kafka.createTopic(topic, PARTITIONS);
    List<String> aggregateIds = IntStream.range(0, AGGREGATES).mapToObj(i -> "order-" + i).toList();
    List<OutboxMessage> stream = stream(topic, aggregateIds);
    long seed = System.nanoTime();
    List<OutboxMessage> copies = randomThird(stream, new Random(seed));

    InboxEffectTables tables = InboxEffectTables.create(dataSource, aggregateIds);
    try (tables;
        Inbox inbox = Inbox.create(dataSource, tables.inboxOptions("kafka-rebalance"));
        KafkaEventPublisher publisher = new KafkaEventPublisher(publisherOptions());
        Admin admin = kafka.admin();
        InboxGroupConsumer a = consumer("A", group, topic, inbox, tables);
        InboxGroupConsumer b = consumer("B", group, topic, inbox, tables)) {
      publish(publisher, stream.stream().filter(m -> m.seq() <= SEQS_BEFORE_REBALANCE).toList());
      a.start();
      await("A applies messages alone", () -> a.applied() >= 100, a, b);

      b.start();
      await(
          "a rebalance: A and B share the partitions",
          () -> a.assigned() > 0 && b.assigned() > 0 && a.assigned() + b.assigned() == PARTITIONS,
          a,
          b);

      a.crashAfterNextPoll();
      publish(publisher, stream.stream().filter(m -> m.seq() > SEQS_BEFORE_REBALANCE).toList());
      publish(publisher, copies); // the producer's redelivery, after the originals
      await("A dies after a poll committed to the database, not to Kafka", a::crashed, a, b);
      await(
          "B has applied and committed every record of the topic",
          () -> allCommitted(admin, group, topic),
          a,
          b);
      b.close();

      long duplicates = a.duplicates() + b.duplicates();
      LOG.info(
          "Inbox rebalance on MariaDB in {} ms: {} distinct messages, {} producer copies (seed {});"
              + " A died after a poll of {} acknowledged records; {}; {}; {} duplicates, {} gaps",
          Duration.ofNanos(System.nanoTime() - start).toMillis(),
          stream.size(),
          copies.size(),
          seed,
          a.crashPollAcknowledged(),
          a,
          b,
          duplicates,
          a.gaps() + b.gaps());

      assertEffectsExactlyOnceInOrder(tables);
      assertPositionsAtTheEnd(inbox);
      assertThat(a.applied() + b.applied()).isEqualTo(stream.size());
      assertThat(tables.appliedByConsumer())
          .as("messages applied by each consumer, from the log")
          .isEqualTo(Map.of("A", a.applied(), "B", b.applied()))
          .allSatisfy((consumer, count) -> assertThat(count).isPositive());
      assertThat(a.crashPollAcknowledged()).as("records B had to read again").isPositive();
      assertThat(duplicates)
          .as("duplicates: the producer's copies, and the records A applied but did not commit")
          .isGreaterThanOrEqualTo(copies.size() + a.crashPollAcknowledged());
    }
  }

  private static void assertEffectsExactlyOnceInOrder(InboxEffectTables tables)
      throws SQLException {
    assertThat(tables.counters())
        .as("each aggregate's counter")
        .hasSize(AGGREGATES)
        .allSatisfy(
            (id, count) ->
                assertThat(count).as("counter of %s", id).isEqualTo((long) MESSAGES_PER_AGGREGATE));
    List<Long> oneToLast = LongStream.rangeClosed(1, MESSAGES_PER_AGGREGATE).boxed().toList();
    assertThat(tables.appliedSeqs())
        .as("the seqs applied per aggregate, in the order applied")
        .hasSize(AGGREGATES)
        .allSatisfy(
            (id, seqs) ->
                assertThat(seqs).as("seqs of %s", id).containsExactlyElementsOf(oneToLast));
  }

  private static void assertPositionsAtTheEnd(Inbox inbox) {
    List<InboxPosition> positions = inbox.positions(AGGREGATES * 2);
    assertThat(positions).hasSize(AGGREGATES);
    assertThat(positions)
        .allSatisfy(
            p -> {
              assertThat(p.epoch()).as("epoch of %s", p.aggregateId()).isEqualTo(EPOCH);
              assertThat(p.appliedSeq())
                  .as("position of %s", p.aggregateId())
                  .isEqualTo(MESSAGES_PER_AGGREGATE);
              assertThat(p.hasGap()).as("gap open on %s", p.aggregateId()).isFalse();
            });
  }

  /** Every aggregate's messages 1..30 in one epoch, seq by seq across the aggregates. */
  private static List<OutboxMessage> stream(String type, List<String> aggregateIds) {
    Instant now = Instant.now();
    List<OutboxMessage> messages = new ArrayList<>();
    for (long seq = 1; seq <= MESSAGES_PER_AGGREGATE; seq++) {
      for (String id : aggregateIds) {
        String payload = "{\"order\":\"" + id + "\",\"step\":" + seq + "}";
        messages.add(
            new OutboxMessage(
                TestMessages.nextId(),
                seq,
                type,
                id,
                "order.stepped",
                OutboxMessage.JSON,
                payload,
                Map.of(),
                now,
                now,
                0,
                EPOCH,
                seq - 1));
      }
    }
    return messages;
  }

  /** A random third of the messages, in the stream's order: what a relay sends a second time. */
  private static List<OutboxMessage> randomThird(List<OutboxMessage> stream, Random random) {
    List<OutboxMessage> shuffled = new ArrayList<>(stream);
    Collections.shuffle(shuffled, random);
    Set<UUID> chosen =
        shuffled.subList(0, stream.size() / 3).stream()
            .map(OutboxMessage::id)
            .collect(Collectors.toSet());
    return stream.stream().filter(m -> chosen.contains(m.id())).toList();
  }

  private static void publish(KafkaEventPublisher publisher, List<OutboxMessage> messages) {
    for (int from = 0; from < messages.size(); from += 300) {
      List<OutboxMessage> batch = messages.subList(from, Math.min(messages.size(), from + 300));
      List<PublishResult> results = publisher.publish(batch, PUBLISH_TIMEOUT);
      assertThat(results).as("publish results").allMatch(PublishResult::isPublished);
    }
  }

  /** Whether the group's committed offset of every partition is the partition's end. */
  private static boolean allCommitted(Admin admin, String group, String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    List<TopicPartition> partitions =
        IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
    Map<TopicPartition, ListOffsetsResultInfo> ends =
        admin
            .listOffsets(
                partitions.stream()
                    .collect(Collectors.toMap(Function.identity(), p -> OffsetSpec.latest())))
            .all()
            .get();
    return partitions.stream()
        .allMatch(
            p -> committed.get(p) != null && committed.get(p).offset() == ends.get(p).offset());
  }

  private InboxGroupConsumer consumer(
      String name, String group, String topic, Inbox inbox, InboxEffectTables tables) {
    return new InboxGroupConsumer(
        name, kafka.bootstrapServers(), group, topic, inbox, dataSource, tables.handler(name));
  }

  private KafkaPublisherOptions publisherOptions() {
    return KafkaPublisherOptions.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .metadataTimeout(Duration.ofSeconds(2))
        .build();
  }

  /** Waits for a condition, failing at once when a consumer's thread failed. */
  private static void await(
      String what, Callable<Boolean> condition, InboxGroupConsumer a, InboxGroupConsumer b) {
    Awaitility.await(what)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              a.checkHealthy();
              b.checkHealthy();
              return condition.call();
            });
  }
}
