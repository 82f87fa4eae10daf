package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.OutboxMessage;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker.Delivered;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** What the RabbitMQ publisher does beyond the contract, on the real broker. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class RabbitMqPublisherBehaviourIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** The publish timeout of the tests that stall the connection. */
  private static final Duration STALL_TIMEOUT = Duration.ofSeconds(2);

  private RabbitMqTestBroker broker;
  private String exchange;
  private String queue;
  private final Queue<Delivered> delivered = new ConcurrentLinkedQueue<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqTestBroker.connect();
  }

  @AfterAll
  void disconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void freshTopology() throws Exception {
    exchange = RabbitMqTestBroker.name("behaviour");
    queue = RabbitMqTestBroker.name("behaviour-q");
  }

  @AfterEach
  void cleanUp() throws Exception {
    // Every step runs whatever the others do: a consumer left open would add the next test's
    // deliveries to this one's late messages.
    for (AutoCloseable closeable : toClose) {
      try {
        closeable.close();
      } catch (ShutdownSignalException e) {
        // closed already (a stalled test's channel, or the broker closed it)
      }
    }
    toClose.clear();
    broker.delete(exchange, queue);
    delivered.clear();
  }

  @Test
  void messagesCarryNativePropertiesAndArePersistent() throws Exception {
    bindQueue("orders.#");
    RabbitMqEventPublisher publisher = publisher(options().appId("billing-service"));
    OutboxMessage message = TestMessages.message("orders", "order-1");

    assertThat(publisher.publish(List.of(message), TIMEOUT)).allMatch(PublishResult::isPublished);
    Delivered received = awaitDelivered(1).get(0);

    assertThat(received.properties().getMessageId()).isEqualTo(message.id().toString());
    assertThat(received.properties().getType()).isEqualTo(message.eventType());
    assertThat(received.properties().getContentType()).isEqualTo(OutboxMessage.JSON);
    assertThat(received.properties().getTimestamp().toInstant())
        .isEqualTo(message.occurredAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    assertThat(received.properties().getAppId()).isEqualTo("billing-service");
    assertThat(received.properties().getDeliveryMode()).isEqualTo(2);
    assertThat(received.headers()).containsAllEntriesOf(message.headers());
  }

  @Test
  void declaredExchangeHasTheConfiguredTypeAndDurability() {
    RabbitMqEventPublisher publisher =
        publisher(options().declareExchange(true).exchangeType("direct").exchangeDurable(true));
    assertThat(broker.exchangeExists(exchange)).isFalse();

    publisher.publish(List.of(TestMessages.message("orders", "order-1")), TIMEOUT);

    assertThat(broker.exchangeExists(exchange)).isTrue();
    assertThat(broker.redeclareAccepted(exchange, "direct", true)).isTrue();
    assertThat(broker.redeclareAccepted(exchange, "topic", true)).isFalse();
  }

  @Test
  void missingExchangeFailsTheBatchRetryablyAndTheNextBatchWorksOnceItExists() throws Exception {
    RabbitMqEventPublisher publisher = publisher(options());
    List<PublishResult> failed =
        publisher.publish(TestMessages.batch("orders", 3, 2), Duration.ofSeconds(5));

    assertThat(failed).noneMatch(PublishResult::isPublished);
    assertThat(failed).allMatch(result -> result.failure().isRetryable());
    assertThat(failed.get(0).failure()).hasMessageContaining("404");

    bindQueue("orders.#");
    assertThat(publisher.publish(TestMessages.batch("orders", 3, 2), TIMEOUT))
        .allMatch(PublishResult::isPublished);
    assertThat(awaitDelivered(6)).hasSize(6);
  }

  @Test
  void connectionLostDuringABatchFailsItsUnconfirmedMessagesRetryablyThenRecovers()
      throws Exception {
    bindQueue("orders.#");
    TcpProxy proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
    toClose.add(proxy);
    RabbitMqEventPublisher publisher = publisher(options().port(proxy.port()));
    publisher.publish(List.of(TestMessages.message("orders", "warm-up")), TIMEOUT);
    List<OutboxMessage> batch = largeBatch(5_000);

    long before = proxy.bytesToBroker();
    CompletableFuture<List<PublishResult>> publishing =
        CompletableFuture.supplyAsync(() -> publisher.publish(batch, TIMEOUT));
    await().atMost(Duration.ofSeconds(10)).until(() -> proxy.bytesToBroker() - before > 500_000);
    proxy.cutConnections();
    List<PublishResult> results = publishing.get(30, TimeUnit.SECONDS);

    assertThat(results).extracting(PublishResult::messageId).hasSize(batch.size());
    List<PublishResult> failed = results.stream().filter(r -> !r.isPublished()).toList();
    assertThat(failed).as("unconfirmed when the connection was cut").isNotEmpty();
    assertThat(failed).allMatch(result -> result.failure().isRetryable());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                publisher
                    .publish(List.of(TestMessages.message("orders", "after")), TIMEOUT)
                    .get(0)
                    .isPublished());
    assertThat(proxy.connections()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void sendsOnAStalledConnectionAreUncertainWithinTheTimeoutAndLandOnceWhenItFlowsAgain()
      throws Exception {
    bindQueue("orders.#");
    TcpProxy proxy = stalledPublisherProxy();
    RabbitMqEventPublisher publisher = publisher(options().port(proxy.port()));
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch("orders", 5, 2);

    proxy.pause();
    List<PublishResult> stalled = timedPublish(publisher, batch);
    proxy.resume();

    assertUncertain(stalled, batch);
    for (PublishResult result : stalled) {
      PublishResult last = finalOf(result);
      assertThat(last.isUncertain()).as("the final outcome is final").isFalse();
      assertThat(last.isPublished()).as("confirmed late: %s", last.failure()).isTrue();
    }
    awaitDelivered(batch.size() + 1);
    Thread.sleep(500); // a duplicate would show now
    assertThat(delivered)
        .extracting(d -> d.properties().getMessageId())
        .as("the warm-up and each message of the batch once: nothing was sent twice")
        .doesNotHaveDuplicates()
        .hasSize(batch.size() + 1)
        .containsAll(batch.stream().map(m -> m.id().toString()).toList());
    assertThat(publisher.publish(List.of(TestMessages.message("orders", "after")), TIMEOUT))
        .as("a fresh channel for the next batch")
        .allMatch(PublishResult::isPublished);
  }

  @Test
  void uncertainSendsWhoseConnectionIsCutFailRetryablyAndSaySoInTheirFinalOutcome()
      throws Exception {
    bindQueue("orders.#");
    TcpProxy proxy = stalledPublisherProxy();
    RabbitMqEventPublisher publisher = publisher(options().port(proxy.port()));
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch("orders", 3, 2);

    proxy.pause();
    List<PublishResult> stalled = timedPublish(publisher, batch);
    proxy.cutConnections();
    proxy.resume();

    assertUncertain(stalled, batch);
    for (PublishResult result : stalled) {
      PublishResult last = finalOf(result);
      assertThat(last.isUncertain()).isFalse();
      assertThat(last.isPublished()).isFalse();
      assertThat(last.failure().isRetryable()).isTrue();
      assertThat(last.failure())
          .hasMessageContaining("closed before the broker confirmed")
          .hasMessageContaining("may or may not have it");
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                publisher
                    .publish(List.of(TestMessages.message("orders", "after")), TIMEOUT)
                    .get(0)
                    .isPublished());
    assertThat(delivered).extracting(d -> d.properties().getMessageId()).doesNotHaveDuplicates();
  }

  @Test
  void aChannelStillUnconfirmedAfterTheGraceIsClosedAndEveryFinalOutcomeCompletes()
      throws Exception {
    bindQueue("orders.#");
    TcpProxy proxy = stalledPublisherProxy();
    RabbitMqEventPublisher publisher = publisher(options().port(proxy.port()));
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch("orders", 3, 2);

    proxy.pause();
    List<PublishResult> stalled = timedPublish(publisher, batch);
    long returned = System.nanoTime();
    List<PublishResult> finals = new ArrayList<>();
    try {
      for (PublishResult result : stalled) {
        finals.add(finalOf(result));
      }
    } finally {
      proxy.resume();
    }
    Duration settledAfter = Duration.ofNanos(System.nanoTime() - returned);

    assertUncertain(stalled, batch);
    assertThat(settledAfter)
        .as("the channel is given up one publish timeout after the call returned")
        .isBetween(STALL_TIMEOUT.minusMillis(200), STALL_TIMEOUT.plusSeconds(2));
    assertThat(finals)
        .allSatisfy(
            last -> {
              assertThat(last.isUncertain()).isFalse();
              assertThat(last.isPublished()).isFalse();
              assertThat(last.failure().isRetryable()).isTrue();
              assertThat(last.failure())
                  .hasMessageContaining("the publisher closed the channel")
                  .hasMessageContaining("may or may not have it");
            });
  }

  @Test
  void closingThePublisherCompletesTheFinalOutcomesOfItsUncertainSends() throws Exception {
    bindQueue("orders.#");
    TcpProxy proxy = stalledPublisherProxy();
    RabbitMqEventPublisher publisher = publisher(options().port(proxy.port()));
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch("orders", 2, 2);

    proxy.pause();
    List<PublishResult> stalled;
    try {
      stalled = timedPublish(publisher, batch);
      publisher.close();
      assertUncertain(stalled, batch);
      for (PublishResult result : stalled) {
        PublishResult last = result.finalOutcome().toCompletableFuture().get(1, TimeUnit.SECONDS);
        assertThat(last.isPublished()).isFalse();
        assertThat(last.failure().isRetryable()).isTrue();
        assertThat(last.failure()).hasMessageContaining("may or may not have it");
      }
    } finally {
      proxy.resume();
    }
  }

  @Test
  void threadsPublishingAtOnceEachGetTheirOwnResults() throws Exception {
    bindQueue("orders.#");
    RabbitMqEventPublisher publisher = publisher(options());
    List<CompletableFuture<List<PublishResult>>> running = new ArrayList<>();
    List<List<OutboxMessage>> batches = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      List<OutboxMessage> batch = TestMessages.batch("orders", 10, 50);
      batches.add(batch);
      running.add(CompletableFuture.supplyAsync(() -> publisher.publish(batch, TIMEOUT)));
    }
    for (int t = 0; t < 4; t++) {
      List<PublishResult> results = running.get(t).get(30, TimeUnit.SECONDS);
      assertThat(results)
          .extracting(PublishResult::messageId)
          .containsExactlyElementsOf(batches.get(t).stream().map(OutboxMessage::id).toList());
      assertThat(results).allMatch(PublishResult::isPublished);
    }
    assertThat(awaitDelivered(2_000)).hasSize(2_000);
  }

  @Test
  void closedPublisherFailsRetryablyInsteadOfThrowing() {
    RabbitMqEventPublisher publisher = publisher(options());
    publisher.close();
    publisher.close();

    List<PublishResult> results =
        publisher.publish(List.of(TestMessages.message("orders", "order-1")), TIMEOUT);
    assertThat(results)
        .singleElement()
        .satisfies(r -> assertThat(r.failure().isRetryable()).isTrue());
  }

  @Test
  void passwordAppearsNeitherInFailuresNorInLogs() throws Exception {
    String secret = "wr0ng-S3cret";
    PrintStream originalErr = System.err;
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    List<PublishResult> results;
    System.setErr(new PrintStream(logs, true, StandardCharsets.UTF_8));
    try {
      results =
          publisher(options().uri("amqp://guest:" + secret + "@127.0.0.1:5672/"))
              .publish(List.of(TestMessages.message("orders", "order-1")), TIMEOUT);
      publisher(options().password("guest"))
          .publish(List.of(TestMessages.message("orders", "order-1")), TIMEOUT);
    } finally {
      System.setErr(originalErr);
    }

    assertThat(results).singleElement().satisfies(r -> assertThat(r.isPublished()).isFalse());
    assertThat(results.get(0).failure().isRetryable()).isTrue();
    assertThat(stackTrace(results.get(0).failure())).doesNotContain(secret);
    String logged = logs.toString(StandardCharsets.UTF_8);
    assertThat(logged).contains("Connected to RabbitMQ as").contains("guest:****@");
    assertThat(logged).doesNotContain(secret).doesNotContain("guest:guest");
  }

  /** A proxy to the broker, closed after the test. */
  private TcpProxy stalledPublisherProxy() throws Exception {
    TcpProxy proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
    toClose.add(proxy);
    return proxy;
  }

  /** One message through, so that the connection and the channel exist before the stall. */
  private void warmUp(RabbitMqEventPublisher publisher) {
    assertThat(publisher.publish(List.of(TestMessages.message("orders", "warm-up")), TIMEOUT))
        .allMatch(PublishResult::isPublished);
    awaitDelivered(1);
  }

  /** Publishes with {@link #STALL_TIMEOUT} and checks that the call keeps to it. */
  private static List<PublishResult> timedPublish(
      RabbitMqEventPublisher publisher, List<OutboxMessage> batch) {
    long start = System.nanoTime();
    List<PublishResult> results = publisher.publish(batch, STALL_TIMEOUT);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("publish returns within its timeout")
        .isLessThan(STALL_TIMEOUT.plusSeconds(1));
    return results;
  }

  /** Published on the channel, never confirmed in time: uncertain, not a plain failure. */
  private static void assertUncertain(List<PublishResult> results, List<OutboxMessage> batch) {
    assertThat(results)
        .extracting(PublishResult::messageId)
        .containsExactlyElementsOf(batch.stream().map(OutboxMessage::id).toList());
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.isPublished()).isFalse();
              assertThat(r.isUncertain()).as("uncertain: %s", r.failure()).isTrue();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure()).hasMessageContaining("may still land");
            });
  }

  private static PublishResult finalOf(PublishResult result) throws Exception {
    return result.finalOutcome().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private static String stackTrace(Throwable failure) {
    StringWriter text = new StringWriter();
    failure.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  private RabbitMqPublisherOptions.Builder options() {
    return RabbitMqTestBroker.options(exchange);
  }

  private RabbitMqEventPublisher publisher(RabbitMqPublisherOptions.Builder options) {
    RabbitMqEventPublisher publisher = new RabbitMqEventPublisher(options.build());
    toClose.add(publisher);
    return publisher;
  }

  private void bindQueue(String pattern) throws Exception {
    broker.declareExchange(exchange, false);
    broker.declareQueue(queue, false, exchange, pattern);
    toClose.add(broker.consume(queue, delivered::add));
  }

  private List<Delivered> awaitDelivered(int count) {
    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= count);
    return new ArrayList<>(delivered);
  }

  private static List<OutboxMessage> largeBatch(int size) {
    String payload = TestMessages.largeJsonPayload(1_000);
    List<OutboxMessage> batch = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      batch.add(TestMessages.message("orders", "order-" + (i % 50), payload, Map.of()));
    }
    return batch;
  }
}
