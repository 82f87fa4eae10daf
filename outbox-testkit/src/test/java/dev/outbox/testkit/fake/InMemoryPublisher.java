package dev.outbox.testkit.fake;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link EventPublisher} on the {@link InMemoryBroker}, mapping messages the way a real adapter
 * does: the id and the content type into the broker's native slots, the aggregate id as key, the
 * rest as headers.
 */
public final class InMemoryPublisher implements EventPublisher {

  /** Whether the publisher gets to the broker. */
  enum Access {
    GRANTED,
    UNREACHABLE,
    REFUSED
  }

  private final InMemoryBroker broker;
  private final Access access;
  private final Flaw flaw;
  private volatile boolean closed;

  InMemoryPublisher(InMemoryBroker broker, Access access, Flaw flaw) {
    this.broker = broker;
    this.access = access;
    this.flaw = flaw;
  }

  @Override
  public String messagingSystem() {
    return "in_memory";
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    if (access == Access.UNREACHABLE || broker.isDown()) {
      return unreachable(messages, timeout);
    }
    if (access == Access.REFUSED) {
      return failAll(
          messages,
          PublishException.brokerUnavailable(
              null,
              null,
              "the in-memory broker refused the credentials of user '" + InMemoryBroker.USER + "'",
              null));
    }
    List<OutboxMessage> order = new ArrayList<>(messages);
    if (flaw == Flaw.REVERSES_BATCH) {
      java.util.Collections.reverse(order);
    }
    Map<OutboxMessage, PublishResult> results = new LinkedHashMap<>();
    order.forEach(message -> results.put(message, send(message)));
    return messages.stream().map(results::get).toList();
  }

  private PublishResult send(OutboxMessage message) {
    String destination = message.aggregateType();
    String key = flaw == Flaw.SENDS_KEY_AS_EVENT_TYPE ? message.eventType() : message.aggregateId();
    ReceivedMessage wire =
        new ReceivedMessage(
            destination,
            message.id().toString(),
            key,
            headers(message),
            message.payloadBytes(),
            message.contentType());
    if (broker.deliver(destination, wire) || flaw == Flaw.REPORTS_UNROUTABLE_AS_PUBLISHED) {
      return PublishResult.published(message.id(), destination);
    }
    if (flaw == Flaw.BLAMES_THE_BROKER_FOR_AN_UNROUTABLE_MESSAGE) {
      return PublishResult.failed(
          message.id(),
          PublishException.brokerUnavailable(
              message.id(), destination, "no such destination", null));
    }
    return PublishResult.failed(
        message.id(),
        PublishException.permanent(message.id(), destination, "no such destination", null));
  }

  private Map<String, String> headers(OutboxMessage message) {
    Map<String, String> headers = new LinkedHashMap<>(WireHeaders.of(message));
    headers.remove(WireHeaders.MESSAGE_ID);
    headers.remove(WireHeaders.CONTENT_TYPE);
    if (flaw == Flaw.DROPS_ROW_HEADERS) {
      headers.keySet().removeAll(message.headers().keySet());
    } else if (flaw == Flaw.LETS_ROW_HEADERS_OVERRIDE) {
      headers.putAll(message.headers());
    }
    return headers;
  }

  private List<PublishResult> unreachable(List<OutboxMessage> messages, Duration timeout) {
    if (flaw == Flaw.THROWS_WHEN_UNREACHABLE) {
      throw new IllegalStateException("connection refused");
    }
    Duration attempt =
        flaw == Flaw.IGNORES_TIMEOUT_WHEN_UNREACHABLE ? timeout.plusSeconds(4) : timeout;
    try {
      Thread.sleep(attempt.toMillis()); // connecting until the deadline, as a client would
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String reason = "the in-memory broker is unreachable within " + timeout;
    return failAll(
        messages,
        flaw == Flaw.BLAMES_THE_MESSAGE_FOR_AN_OUTAGE
            ? PublishException.retryable(null, null, reason, null)
            : PublishException.brokerUnavailable(null, null, reason, null));
  }

  private static List<PublishResult> failAll(
      List<OutboxMessage> messages, PublishException failure) {
    return messages.stream().map(m -> PublishResult.failed(m.id(), failure)).toList();
  }

  @Override
  public void close() {
    closed = true;
  }
}
