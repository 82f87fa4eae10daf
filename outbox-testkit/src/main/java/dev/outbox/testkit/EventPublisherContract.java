package dev.outbox.testkit;

import static dev.outbox.testkit.ContractChecks.assertFailed;
import static dev.outbox.testkit.ContractChecks.ids;
import static dev.outbox.testkit.ContractChecks.idsByAggregate;
import static dev.outbox.testkit.ContractChecks.idsByKey;
import static dev.outbox.testkit.ContractChecks.publish;
import static dev.outbox.testkit.ContractChecks.strings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link EventPublisher} shows against its real broker: ids, keys, headers,
 * bodies, batch results and order, failures for what cannot be delivered. An adapter's integration
 * test ({@code KafkaEventPublisherIT}) extends it and implements the hooks; the contract's tests
 * then run against that broker.
 *
 * <p>Each test uses aggregate types of its own ({@link TestMessages#aggregateType(String)}), so the
 * publisher under test must route by aggregate type (Kafka topic, NATS subject token, RabbitMQ
 * routing key, Service Bus entity), and the broker must not create destinations on its own: an
 * aggregate type that was never {@linkplain #prepareDestination(String) prepared} is unroutable.
 *
 * <p>One instance runs all tests ({@link TestInstance.Lifecycle#PER_CLASS}), so a subclass may
 * start its broker in a non-static {@code @BeforeAll}. Publishers are closed after each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
public abstract class EventPublisherContract {

  /** The publish timeout of the unreachable-broker test. */
  protected static final Duration UNREACHABLE_TIMEOUT = Duration.ofSeconds(3);

  /** How much longer than its timeout {@code publish} may take when the broker is unreachable. */
  protected static final Duration UNREACHABLE_MARGIN = Duration.ofSeconds(3);

  /** The epoch of the stream of the consumer-binding test: 2025-01-01 in milliseconds. */
  private static final long STREAM_EPOCH = 1_735_689_600_000L;

  private final List<EventPublisher> publishers = new ArrayList<>();

  /**
   * A publisher connected to the real broker, routing by aggregate type.
   *
   * @return a new publisher; the contract closes it after the test
   */
  protected abstract EventPublisher createPublisher();

  /**
   * A publisher configured like {@link #createPublisher()} but pointed at an address where no
   * broker listens (for example {@code 127.0.0.1:} {@link #closedLocalPort()}). Creating it must
   * not fail: the outbox starts while the broker is down.
   *
   * @return a new publisher; the contract closes it after the test
   */
  protected abstract EventPublisher createUnreachablePublisher();

  /**
   * A publisher configured like {@link #createPublisher()} whose every connection to the broker
   * passes through a {@link TcpProxy} (the {@link BrokerSwitch}), so that the contract can take the
   * broker away and bring it back. The contract turns the switch {@linkplain BrokerSwitch#up() up}
   * and closes the publisher after the test; closing the proxy is the subclass's, which may share
   * one proxy between tests (Kafka, whose broker must advertise the proxy's port).
   *
   * @return the publisher and its switch
   * @throws Exception when the proxy cannot be opened
   */
  protected abstract Behind createPublisherBehindProxy() throws Exception;

  /**
   * A publisher configured like {@link #createPublisher()} but with credentials the broker refuses
   * (a wrong password). Creating it must not fail.
   *
   * @return a new publisher; the contract closes it after the test
   * @throws Exception when the broker with credentials cannot be set up
   */
  protected abstract EventPublisher createPublisherWithRefusedCredentials() throws Exception;

  /**
   * A publisher and the switch that takes its broker away: the proxy all its connections pass
   * through.
   *
   * @param publisher the publisher
   * @param broker its switch
   */
  public record Behind(EventPublisher publisher, BrokerSwitch broker) {}

  /**
   * Creates on the broker what messages of this aggregate type need to be routed and received
   * (topic, queue and binding, stream, entity), and starts receiving from it if the broker requires
   * a consumer before publishing.
   *
   * @param aggregateType a fresh aggregate type
   * @throws Exception when the broker refuses
   */
  protected abstract void prepareDestination(String aggregateType) throws Exception;

  /**
   * Receives messages of a prepared aggregate type, mapping each into a {@link ReceivedMessage}.
   *
   * @param aggregateType a type passed to {@link #prepareDestination(String)} before
   * @param count how many to wait for
   * @param timeout how long to wait at most
   * @return the messages in arrival order: {@code count} of them, or fewer when the time ran out
   * @throws Exception when the broker fails
   */
  protected abstract List<ReceivedMessage> receive(
      String aggregateType, int count, Duration timeout) throws Exception;

  /**
   * Receives messages of a prepared aggregate type as the adapter's users consume them: with the
   * broker's own client, each received object read by the adapter's consumer-side binding ({@code
   * KafkaIncoming.of(record)}, {@code RabbitMqIncoming.of(delivery)}, ...).
   *
   * <p>By default {@link #receive} and {@link IncomingMessage#of} on its normal form, for a
   * publisher with no client of its own (an in-memory one). An adapter overrides it, so that the
   * contract checks its binding on what its broker really delivers.
   *
   * @param aggregateType a type passed to {@link #prepareDestination(String)} before
   * @param count how many to wait for
   * @param timeout how long to wait at most
   * @return the messages in arrival order: {@code count} of them, or fewer when the time ran out
   * @throws Exception when the broker fails
   */
  protected List<IncomingMessage> receiveIncoming(String aggregateType, int count, Duration timeout)
      throws Exception {
    return receive(aggregateType, count, timeout).stream()
        .map(r -> IncomingMessage.of(r.headers(), r.body(), r.messageId()))
        .toList();
  }

  /**
   * An aggregate type whose messages the broker cannot accept.
   *
   * @return by default a fresh type never prepared; override when the broker needs more
   */
  protected String unroutableAggregateType() {
    return TestMessages.aggregateType("unroutable");
  }

  /**
   * The timeout passed to {@code publish} when the broker is reachable.
   *
   * @return 20 seconds by default
   */
  protected Duration publishTimeout() {
    return Duration.ofSeconds(20);
  }

  /**
   * How long {@link #receive} may wait.
   *
   * @return 30 seconds by default
   */
  protected Duration receiveTimeout() {
    return Duration.ofSeconds(30);
  }

  /**
   * A local TCP port nothing listens on (it was free a moment ago).
   *
   * @return the port
   */
  protected static int closedLocalPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterEach
  void closePublishers() {
    publishers.forEach(EventPublisher::close);
    publishers.clear();
  }

  @Test
  void namesItsBrokerForPublishSpans() {
    EventPublisher publisher = createPublisher();
    publishers.add(publisher);
    assertThat(publisher.messagingSystem())
        .as("messagingSystem(), the messaging.system of publish spans")
        .matches("[a-z][a-z0-9_.]*")
        .isNotEqualTo("unknown");
  }

  @Test
  void messageIdArrivesAsTheBrokersOwnMessageId() throws Exception {
    OutboxMessage message = TestMessages.message(prepared("id"), "order-1");
    assertThat(received(message).messageId()).isEqualTo(message.id().toString());
  }

  @Test
  void aggregateIdArrivesAsTheKey() throws Exception {
    OutboxMessage message = TestMessages.message(prepared("key"), "order-42");
    assertThat(received(message).key()).isEqualTo("order-42");
  }

  @Test
  void eventMetadataAndEveryRowHeaderArriveAsNativeHeaders() throws Exception {
    OutboxMessage message = TestMessages.message(prepared("headers"), "order-7");
    ReceivedMessage received = received(message);

    assertThat(received.headers())
        .containsEntry(WireHeaders.EVENT_TYPE, message.eventType())
        .containsEntry(WireHeaders.AGGREGATE_TYPE, message.aggregateType())
        .containsEntry(WireHeaders.AGGREGATE_ID, message.aggregateId())
        .containsEntry(WireHeaders.SEQ, Long.toString(message.seq()))
        .containsAllEntriesOf(message.headers());
    assertThat(Instant.parse(received.headers().get(WireHeaders.OCCURRED_AT)))
        .isEqualTo(message.occurredAt());
    assertThat(received.contentType()).isEqualTo(OutboxMessage.JSON);
    assertThat(received.destination()).isNotBlank();
  }

  @Test
  void rowHeadersCannotOverrideTheStandardHeaders() throws Exception {
    Map<String, String> forged = new LinkedHashMap<>();
    forged.put(WireHeaders.EVENT_TYPE, "forged");
    forged.put(WireHeaders.AGGREGATE_ID, "someone-else");
    forged.put(WireHeaders.SEQ, "999999999");
    forged.put("correlation-id", "c-1");
    OutboxMessage message =
        TestMessages.message(prepared("forged"), "order-8", "{\"orderId\":\"order-8\"}", forged);
    ReceivedMessage received = received(message);

    assertThat(received.headers())
        .containsEntry(WireHeaders.EVENT_TYPE, message.eventType())
        .containsEntry(WireHeaders.AGGREGATE_ID, "order-8")
        .containsEntry(WireHeaders.SEQ, Long.toString(message.seq()))
        .containsEntry("correlation-id", "c-1");
  }

  @Test
  void bodyArrivesByteExact() throws Exception {
    String type = prepared("body");
    OutboxMessage small =
        TestMessages.message(type, "order-1", "{\"city\":\"Zürich\",\"x\":\"😀\"}");
    OutboxMessage large =
        TestMessages.message(type, "order-1", TestMessages.largeJsonPayload(1024));
    assertThat(large.payloadBytes().length).isBetween(1000, 1300);

    List<ReceivedMessage> received = publishAndReceive(type, List.of(small, large));
    assertThat(received.get(0).body()).isEqualTo(small.payloadBytes());
    assertThat(received.get(1).body()).isEqualTo(large.payloadBytes());
  }

  @Test
  void consumerBindingReadsIdStreamPositionEventTypeAndBodyOfTheReceivedMessage() throws Exception {
    String type = prepared("incoming");
    List<OutboxMessage> stream = TestMessages.batch(type, 1, 3);
    // the second was dead-lettered: the third comes after the first, in a stream of a later epoch
    OutboxMessage message = stream.get(2).inStream(STREAM_EPOCH, stream.get(0).seq());
    assertThat(publish(createTracked(), List.of(message), publishTimeout()))
        .allSatisfy(r -> assertThat(r.isPublished()).as("published: %s", r.failure()).isTrue());

    List<IncomingMessage> received = receiveIncoming(type, 1, receiveTimeout());

    assertThat(received).as("received from %s", type).hasSize(1);
    IncomingMessage incoming = received.get(0);
    assertThat(incoming.id()).isEqualTo(message.id().toString());
    assertThat(incoming.aggregateType()).isEqualTo(type);
    assertThat(incoming.aggregateId()).isEqualTo(TestMessages.aggregateId(0));
    assertThat(incoming.hasSeq()).as("hasSeq of %s", incoming).isTrue();
    assertThat(incoming.seq()).isEqualTo(message.seq());
    assertThat(incoming.epoch()).isEqualTo(STREAM_EPOCH);
    assertThat(incoming.prevSeq()).isEqualTo(stream.get(0).seq()).isLessThan(message.seq() - 1);
    assertThat(incoming.eventType()).isEqualTo(TestMessages.EVENT_TYPE);
    assertThat(incoming.payload()).isEqualTo(message.payloadBytes());
    assertThat(incoming.header("correlation-id"))
        .isEqualTo(message.headers().get("correlation-id"));
  }

  @Test
  void batchReturnsOnePublishedResultPerMessageInInputOrder() throws Exception {
    List<OutboxMessage> batch = TestMessages.batch(prepared("batch"), 5, 10);
    List<PublishResult> results = publish(createTracked(), batch, publishTimeout());

    assertThat(results).extracting(PublishResult::messageId).containsExactlyElementsOf(ids(batch));
    assertThat(results)
        .allSatisfy(r -> assertThat(r.isPublished()).as("published: %s", r.failure()).isTrue());
    assertThat(results)
        .as("each names where it went (metrics' destination tag, the publish span's name)")
        .allSatisfy(r -> assertThat(r.destination()).isNotBlank());
  }

  @Test
  void messagesOfOneAggregateArriveInBatchOrder() throws Exception {
    String type = prepared("order");
    List<OutboxMessage> batch = TestMessages.batch(type, 5, 10);
    List<ReceivedMessage> received = publishAndReceive(type, batch);

    assertThat(idsByKey(received)).isEqualTo(idsByAggregate(batch));
  }

  @Test
  void unroutableMessageIsReportedAsFailureNeverSuccess() {
    OutboxMessage message = TestMessages.message(unroutableAggregateType(), "order-1");
    List<PublishResult> results = publish(createTracked(), List.of(message), publishTimeout());

    assertThat(results).singleElement().satisfies(r -> assertFailed(r, message));
  }

  @Test
  void routableMessagesOfAMixedBatchArePublishedWhenOthersAreUnroutable() throws Exception {
    String routable = prepared("mixed");
    String unroutable = unroutableAggregateType();
    List<OutboxMessage> good = new ArrayList<>();
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      OutboxMessage message = TestMessages.message(i % 2 == 0 ? routable : unroutable, "order-1");
      batch.add(message);
      if (i % 2 == 0) {
        good.add(message);
      }
    }
    List<PublishResult> results = publish(createTracked(), batch, publishTimeout());

    assertThat(results).extracting(PublishResult::messageId).containsExactlyElementsOf(ids(batch));
    for (int i = 0; i < batch.size(); i++) {
      if (i % 2 == 0) {
        assertThat(results.get(i).isPublished()).as("routable #%d", i).isTrue();
      } else {
        assertFailed(results.get(i), batch.get(i));
      }
    }
    List<ReceivedMessage> received = receive(routable, good.size(), receiveTimeout());
    assertThat(received).extracting(ReceivedMessage::messageId).isEqualTo(strings(ids(good)));
  }

  @Test
  void unreachableBrokerFailsEveryMessageRetryablyWithinTheTimeout() {
    List<OutboxMessage> batch = TestMessages.batch(TestMessages.aggregateType("down"), 2, 3);
    EventPublisher publisher = track(createUnreachablePublisher());

    long start = System.nanoTime();
    List<PublishResult> results = publish(publisher, batch, UNREACHABLE_TIMEOUT);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    assertThat(elapsed).isLessThan(UNREACHABLE_TIMEOUT.plus(UNREACHABLE_MARGIN));
    assertThat(results).extracting(PublishResult::messageId).containsExactlyElementsOf(ids(batch));
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.isPublished()).as("published with no broker").isFalse();
              assertThat(r.failure().isRetryable()).as("retryable: %s", r.failure()).isTrue();
            });
  }

  @Test
  void unroutableMessageIsTheMessagesFaultNotTheBrokers() {
    OutboxMessage message = TestMessages.message(unroutableAggregateType(), "order-1");
    List<PublishResult> results = publish(createTracked(), List.of(message), publishTimeout());

    assertThat(results)
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.failure().isBrokerFault())
                    .as("an unroutable message blamed on the broker: %s", r.failure())
                    .isFalse());
  }

  @Test
  void unreachableBrokerIsTheBrokersFaultForEveryMessage() {
    List<OutboxMessage> batch = TestMessages.batch(TestMessages.aggregateType("down"), 2, 2);
    List<PublishResult> results =
        publish(track(createUnreachablePublisher()), batch, UNREACHABLE_TIMEOUT);

    assertThat(results).allSatisfy(ContractChecks::assertBrokerFault);
  }

  @Test
  void brokerTakenAwayIsTheBrokersFaultAndPublishingResumesWhenItIsBack() throws Exception {
    String type = prepared("cut");
    Behind behind = createPublisherBehindProxy();
    EventPublisher publisher = track(behind.publisher());
    try {
      List<OutboxMessage> before = TestMessages.batch(type, 1, 2);
      assertThat(publish(publisher, before, publishTimeout()))
          .allSatisfy(r -> assertThat(r.isPublished()).as("before the cut: %s", r).isTrue());

      behind.broker().down();
      List<OutboxMessage> during = TestMessages.batch(type, 2, 2);
      assertThat(publish(publisher, during, UNREACHABLE_TIMEOUT))
          .allSatisfy(ContractChecks::assertBrokerFault);

      behind.broker().up();
      List<OutboxMessage> after = TestMessages.batch(type, 1, 2);
      assertThat(ContractChecks.publishUntilAccepted(publisher, after, publishTimeout()))
          .as("published within %s of the broker's return", publishTimeout())
          .isTrue();
    } finally {
      behind.broker().up();
    }
  }

  @Test
  void refusedCredentialsAreTheBrokersFaultAndSaySo() throws Exception {
    List<OutboxMessage> batch = TestMessages.batch(prepared("creds"), 1, 2);
    List<PublishResult> results =
        publish(track(createPublisherWithRefusedCredentials()), batch, UNREACHABLE_TIMEOUT);

    assertThat(results)
        .allSatisfy(
            r -> {
              ContractChecks.assertBrokerFault(r);
              assertThat(r.failure().getMessage().toLowerCase(java.util.Locale.ROOT))
                  .as("names the credentials: %s", r.failure())
                  .containsAnyOf("credential", "authentic", "password", "auth");
            });
  }

  private String prepared(String purpose) throws Exception {
    String type = TestMessages.aggregateType(purpose);
    prepareDestination(type);
    return type;
  }

  private ReceivedMessage received(OutboxMessage message) throws Exception {
    return publishAndReceive(message.aggregateType(), List.of(message)).get(0);
  }

  private List<ReceivedMessage> publishAndReceive(String type, List<OutboxMessage> messages)
      throws Exception {
    List<PublishResult> results = publish(createTracked(), messages, publishTimeout());
    assertThat(results)
        .allSatisfy(r -> assertThat(r.isPublished()).as("published: %s", r.failure()).isTrue());
    List<ReceivedMessage> received = receive(type, messages.size(), receiveTimeout());
    assertThat(received).as("received from %s", type).hasSize(messages.size());
    return received;
  }

  private EventPublisher createTracked() {
    return track(createPublisher());
  }

  private EventPublisher track(EventPublisher publisher) {
    publishers.add(publisher);
    return publisher;
  }
}
