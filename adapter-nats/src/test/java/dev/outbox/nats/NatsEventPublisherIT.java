package dev.outbox.nats;

import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.ReceivedMessage;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The publisher contract on the real nats-server at 127.0.0.1:4222. Every test's aggregate type
 * gets a stream of its own on {@code <prefix>.<aggregateType>.>}, deleted after the class; the
 * prefix is unique to the run, so no other stream on the server captures these subjects.
 */
class NatsEventPublisherIT extends EventPublisherContract {

  private final String prefix = JetStreamFixture.unique("ct").replace('-', '_');
  private JetStreamFixture nats;

  @BeforeAll
  void connect() throws Exception {
    nats = JetStreamFixture.local();
  }

  @AfterAll
  void deleteStreams() throws Exception {
    if (nats != null) {
      nats.close();
    }
  }

  @Override
  protected EventPublisher createPublisher() {
    return NatsEventPublisher.connect(options(JetStreamFixture.URL));
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return NatsEventPublisher.connect(options("nats://127.0.0.1:" + closedLocalPort()));
  }

  private NatsPublisherOptions options(String url) {
    return NatsPublisherOptions.builder().servers(List.of(url)).subjectPrefix(prefix).build();
  }

  @Override
  protected void prepareDestination(String aggregateType) throws Exception {
    nats.createStream(stream(aggregateType), prefix + "." + aggregateType + ".>");
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout)
      throws Exception {
    List<ReceivedMessage> received = new ArrayList<>();
    String subject = prefix + "." + aggregateType + ".>";
    for (Message message : nats.read(stream(aggregateType), subject, count, timeout)) {
      received.add(normalize(message));
    }
    return received;
  }

  private static String stream(String aggregateType) {
    return "CT_" + aggregateType;
  }

  /** NATS has no key or content-type slot: those come from the standard headers. */
  private static ReceivedMessage normalize(Message message) {
    Headers headers = message.getHeaders();
    Map<String, String> flat = new LinkedHashMap<>();
    for (String name : headers.keySet()) {
      flat.put(name, headers.getFirst(name));
    }
    return new ReceivedMessage(
        message.getSubject(),
        headers.getFirst("Nats-Msg-Id"),
        headers.getFirst(WireHeaders.AGGREGATE_ID),
        flat,
        message.getData() == null ? new byte[0] : message.getData(),
        headers.getFirst(WireHeaders.CONTENT_TYPE));
  }
}
