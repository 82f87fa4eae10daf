package dev.outbox.nats;

import dev.outbox.hibernate.testing.e2e.BrokerOutageContract;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.nats.testing.NatsServerProcess;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's {@link BrokerOutageContract} on a private nats-server with JetStream and a user
 * and password (a free loopback port, a store directory of its own: the shared server is never
 * touched), taken away by a {@link TcpProxy} in front of it. Every prepared aggregate type gets a
 * stream of its own on {@code natsout.<aggregateType>.>}, read back with an ordered consumer; the
 * poison type's stream takes no message larger than 16 bytes ({@code max_msg_size}). The stream
 * drops the duplicates an outage may cause ({@code Nats-Msg-Id}), so delivery after an outage is
 * checked exactly once.
 */
class NatsBrokerOutageIT extends BrokerOutageContract {

  private static final String PREFIX = "natsout";
  private static final String USER = "app";
  private static final String PASSWORD = "the-right-password";

  private NatsServerProcess server;
  private TcpProxy proxy;

  /** The test's own connection, with the user and password, that creates and reads the streams. */
  private JetStreamFixture nats;

  @BeforeAll
  void startServer() throws Exception {
    server = NatsServerProcess.start(NatsServerProcess.Settings.DEFAULTS.withUser(USER, PASSWORD));
    nats = JetStreamFixture.at(server.url().replace("//", "//" + USER + ":" + PASSWORD + "@"));
    proxy = new TcpProxy("127.0.0.1", port(server.url()));
  }

  @AfterAll
  void stopServer() {
    if (proxy != null) {
      proxy.close();
    }
    if (nats != null) {
      nats.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected String databaseName() {
    return "nats_broker_outage";
  }

  @Override
  protected String brokerName() {
    return "NATS";
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(publisher("nats://127.0.0.1:" + proxy.port(), PASSWORD), proxy);
  }

  @Override
  protected EventPublisher createPublisher(String password) {
    return publisher(server.url(), password);
  }

  @Override
  protected String password() {
    return PASSWORD;
  }

  @Override
  protected String refusedCredentialsOf() {
    return "user '" + USER + "'";
  }

  @Override
  protected void prepareDestination(String aggregateType) throws Exception {
    nats.createStream(stream(aggregateType), subjects(aggregateType));
  }

  @Override
  protected AutoCloseable receive(String aggregateType, DeliveryCheck check) throws Exception {
    return nats.follow(
        stream(aggregateType),
        subjects(aggregateType),
        message ->
            check.record(
                message.getHeaders().getFirst(WireHeaders.AGGREGATE_ID),
                E2eAggregate.Stepped.parse(message.getData()).sequence(),
                message.getHeaders().getFirst("Nats-Msg-Id")));
  }

  /** A type whose stream takes no message larger than 16 bytes: every one is larger. */
  @Override
  protected Poison preparePoison() throws Exception {
    String type = TestMessages.aggregateType("poison");
    nats.createStreamWithMaxMessageSize(stream(type), 16, subjects(type));
    return new Poison(
        type,
        MAX_ATTEMPTS,
        List.of("JetStream rejected the message", "message size exceeds maximum"));
  }

  @Override
  protected boolean deliversExactlyOnceAfterAnOutage() {
    return true;
  }

  /** Routes by aggregate type under {@link #PREFIX}; reconnects every 200 ms. */
  private static NatsEventPublisher publisher(String url, String password) {
    return NatsEventPublisher.connect(
        NatsPublisherOptions.builder()
            .servers(List.of(url))
            .subjectPrefix(PREFIX)
            .reconnectWait(Duration.ofMillis(200))
            .userPassword(USER, password)
            .build());
  }

  private static String stream(String aggregateType) {
    return "OUT_" + aggregateType;
  }

  private static String subjects(String aggregateType) {
    return PREFIX + "." + aggregateType + ".>";
  }

  private static int port(String url) {
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }
}
