package dev.outbox.nats;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.nats.internal.Connector;
import dev.outbox.nats.internal.Failures;
import dev.outbox.nats.internal.JetStreamBatch;
import dev.outbox.nats.internal.StreamLookup;
import dev.outbox.nats.internal.StreamProvisioner;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox messages to NATS JetStream. A message counts as published only when a stream
 * acknowledged it; a batch is sent with {@code publishAsync} and its acknowledgements are awaited
 * together within the publish timeout. {@code Nats-Msg-Id} carries the outbox id, so the stream
 * drops a message re-sent within its duplicate window; that duplicate acknowledgement counts as
 * success.
 *
 * <p>Failures of the broker ({@link PublishException#isBrokerFault()}, no attempt counted): no
 * connection (down, refused, lost, or the server refused the credentials, which the message says
 * with the user's name), no acknowledgement at all within the timeout, JetStream not available (not
 * enabled, no responders on its API, a 5xx JetStream error such as insufficient resources), and a
 * stream that captures the subject but does not answer. Failures of the message, retryable: no
 * stream capturing the subject while JetStream answers ("no stream for subject ..."), a 4xx
 * JetStream error (above the stream's {@code max_msg_size}, wrong last sequence, duplicate
 * conflict); permanent: what NATS cannot carry at all (an invalid subject, a header that is not
 * printable ASCII, a payload above the server's {@code max_payload}). {@link #publish} never throws
 * and returns within its timeout.
 *
 * <p>The connection reconnects forever and fails over among the servers; the publisher can be
 * created while NATS is down (it keeps trying in the background), and publishes fail as broker
 * faults until NATS is back. Thread-safe.
 *
 * <pre>{@code
 * EventPublisher publisher = NatsEventPublisher.connect(NatsPublisherOptions.builder()
 *     .servers(List.of("nats://localhost:4222"))
 *     .stream(NatsStreamOptions.builder().create(true).build())
 *     .build());
 * }</pre>
 */
public final class NatsEventPublisher implements EventPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(NatsEventPublisher.class);
  private static final Duration START_BUDGET = Duration.ofSeconds(5);

  private final NatsPublisherOptions options;
  private final StreamProvisioner streams;
  private final JetStreamBatch batch;
  private final Connector connector;
  private volatile JetStream jetStream;
  private volatile boolean closed;

  private NatsEventPublisher(NatsPublisherOptions options) {
    this.options = options;
    this.streams = new StreamProvisioner(options);
    this.batch =
        new JetStreamBatch(
            options.subjectFunction(), streams::recheck, this::findStreams, this::reconnects);
    this.connector = new Connector(options, this::connected);
  }

  /**
   * Opens the connection and, when {@link NatsStreamOptions#create()} is on, creates the stream
   * once connected. Returns after one connection attempt even when no server is reachable: the
   * connection keeps trying in the background.
   *
   * @param options the options
   * @return the publisher; close it (or the outbox that owns it) to close the connection
   */
  public static NatsEventPublisher connect(NatsPublisherOptions options) {
    LOG.info("Starting the outbox NATS publisher: {}", options);
    NatsEventPublisher publisher = new NatsEventPublisher(options);
    publisher.connector.start();
    return publisher;
  }

  private void connected(Connection connection) {
    try {
      jetStream = connection.jetStream();
    } catch (IOException e) {
      LOG.warn("JetStream is not available on {}: {}", connection.getConnectedUrl(), e.toString());
      return;
    }
    Failures.Reason problem = streams.ensure(connection, START_BUDGET);
    if (problem != null) {
      LOG.warn("{}; publishing fails until it is fixed", problem.text());
    }
  }

  /** How often the connection was re-established so far. */
  private long reconnects() {
    Connection connection = connector.connection();
    return connection == null ? 0 : connection.getStatistics().getReconnects();
  }

  private StreamLookup findStreams(String subject, Duration budget) {
    return StreamLookup.find(connector.connection(), subject, budget);
  }

  /** {@return {@code nats}, its name in the OpenTelemetry messaging conventions} */
  @Override
  public String messagingSystem() {
    return "nats";
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (closed) {
        return allFailed(messages, Failures.Reason.broker("the NATS publisher is closed"));
      }
      JetStream js = jetStream;
      if (js == null || !connector.isConnected()) {
        return allFailed(messages, Failures.Reason.broker(connector.unavailableReason()));
      }
      // two management requests at most, each within a third of the budget
      Failures.Reason streamProblem = streams.ensure(connector.connection(), timeout.dividedBy(3));
      if (streamProblem != null) {
        return allFailed(messages, streamProblem);
      }
      List<PublishResult> results = batch.publish(js, messages, timeout, deadline);
      LOG.debug("Published a batch of {} to JetStream", messages.size());
      return results;
    } catch (RuntimeException e) {
      return allFailed(messages, Failures.unexpected(e));
    }
  }

  /**
   * Whether the connection is up now.
   *
   * @return {@code true} when connected
   */
  public boolean isConnected() {
    return connector.isConnected();
  }

  /**
   * The options this publisher was made with.
   *
   * @return the options
   */
  public NatsPublisherOptions options() {
    return options;
  }

  /** Stops connecting and closes the connection. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    connector.close();
  }

  private static List<PublishResult> allFailed(
      List<OutboxMessage> messages, Failures.Reason reason) {
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      results.add(PublishResult.failed(message.id(), reason.toException(message.id(), null, null)));
    }
    return results;
  }
}
