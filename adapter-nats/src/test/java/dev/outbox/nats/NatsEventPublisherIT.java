package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.nats.testing.NatsServerProcess;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The publisher contract on the real nats-server at 127.0.0.1:4222. Every test's aggregate type
 * gets a stream of its own on {@code <prefix>.<aggregateType>.>}, deleted after the class; the
 * prefix is unique to the run, so no other stream on the server captures these subjects. The broker
 * is taken away by a {@link TcpProxy} in front of the shared server; refused credentials need a
 * server that checks them, a private one ({@link NatsServerProcess}) with a user.
 */
class NatsEventPublisherIT extends EventPublisherContract {

  private static final String USER = "app";

  private final String prefix = JetStreamFixture.unique("ct").replace('-', '_');
  private final List<TcpProxy> proxies = new ArrayList<>();
  private JetStreamFixture nats;
  private NatsServerProcess withCredentials;

  @BeforeAll
  void connect() throws Exception {
    nats = JetStreamFixture.local();
  }

  @AfterAll
  void deleteStreams() throws Exception {
    if (nats != null) {
      nats.close();
    }
    for (TcpProxy proxy : proxies) {
      proxy.close();
    }
    if (withCredentials != null) {
      withCredentials.close();
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

  @Override
  protected Behind createPublisherBehindProxy() throws Exception {
    TcpProxy proxy = new TcpProxy("127.0.0.1", 4222);
    proxies.add(proxy);
    NatsPublisherOptions options =
        options("nats://127.0.0.1:" + proxy.port()).toBuilder()
            .reconnectWait(Duration.ofMillis(200))
            .build();
    return new Behind(NatsEventPublisher.connect(options), proxy);
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() throws Exception {
    if (withCredentials == null) {
      withCredentials =
          NatsServerProcess.start(
              NatsServerProcess.Settings.DEFAULTS.withUser(USER, "the-right-password"));
    }
    return NatsEventPublisher.connect(
        options(withCredentials.url()).toBuilder().userPassword(USER, "a-wrong-password").build());
  }

  @Test
  void refusedCredentialsNameTheUserAndTheServerButNeverThePassword() throws Exception {
    List<OutboxMessage> batch = TestMessages.batch(TestMessages.aggregateType("creds"), 1, 1);
    try (EventPublisher publisher = createPublisherWithRefusedCredentials()) {
      PublishResult result = publisher.publish(batch, Duration.ofSeconds(3)).get(0);

      assertThat(result.failure().isBrokerFault())
          .as("broker fault: %s", result.failure())
          .isTrue();
      assertThat(result.failure().getMessage())
          .startsWith(
              "NATS at "
                  + withCredentials.url()
                  + " refused the credentials of user 'app' (Authorization Violation);"
                  + " fix the user or password")
          .doesNotContain("a-wrong-password");
    }
  }

  @Test
  void subjectOfAServerWithoutJetStreamIsTheBrokersFaultNotTheMessages() throws Exception {
    try (NatsServerProcess plain =
            NatsServerProcess.start(NatsServerProcess.Settings.DEFAULTS.withoutJetStream());
        EventPublisher publisher = NatsEventPublisher.connect(options(plain.url()))) {
      List<PublishResult> results =
          publisher.publish(
              TestMessages.batch(TestMessages.aggregateType("nojs"), 2, 1), publishTimeout());

      assertThat(results)
          .allSatisfy(
              r -> {
                assertThat(r.failure().isBrokerFault())
                    .as("broker fault: %s", r.failure())
                    .isTrue();
                assertThat(r.failure()).hasMessageContaining("JetStream is not available");
              });
    }
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
    return read(aggregateType, count, timeout).stream()
        .map(NatsEventPublisherIT::normalize)
        .toList();
  }

  /** Each message as a JetStream pull consumer fetched it, read by {@link NatsIncoming}. */
  @Override
  protected List<IncomingMessage> receiveIncoming(String aggregateType, int count, Duration timeout)
      throws Exception {
    return read(aggregateType, count, timeout).stream().map(NatsIncoming::of).toList();
  }

  private List<Message> read(String aggregateType, int count, Duration timeout) throws Exception {
    return nats.read(stream(aggregateType), prefix + "." + aggregateType + ".>", count, timeout);
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
