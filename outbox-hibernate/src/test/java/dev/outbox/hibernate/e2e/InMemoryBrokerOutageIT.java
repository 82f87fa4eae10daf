package dev.outbox.hibernate.e2e;

import dev.outbox.hibernate.testing.e2e.BrokerOutageContract;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.fake.InMemoryBroker;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.List;

/**
 * The outage contract against the in-memory broker on the real PostgreSQL, from another package, as
 * an adapter's test would extend it: proves the contract passes for a publisher that blames the
 * broker for an outage and refused credentials, and the message for a missing destination (which it
 * calls permanent: one attempt).
 */
class InMemoryBrokerOutageIT extends BrokerOutageContract {

  private static final String PASSWORD = "the-right-password";

  private final InMemoryBroker broker = new InMemoryBroker();

  @Override
  protected String databaseName() {
    return "testkit_outage";
  }

  @Override
  protected String brokerName() {
    return "in-memory broker";
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(broker.publisher(Flaw.NONE), broker);
  }

  @Override
  protected EventPublisher createPublisher(String password) {
    return PASSWORD.equals(password)
        ? broker.publisher(Flaw.NONE)
        : broker.publisherWithWrongPassword(Flaw.NONE);
  }

  @Override
  protected String password() {
    return PASSWORD;
  }

  @Override
  protected String refusedCredentialsOf() {
    return "user '" + InMemoryBroker.USER + "'";
  }

  @Override
  protected void prepareDestination(String aggregateType) {
    broker.declare(aggregateType);
  }

  @Override
  protected AutoCloseable receive(String aggregateType, DeliveryCheck check) {
    Thread consumer =
        new Thread(
            () -> {
              try {
                while (!Thread.currentThread().isInterrupted()) {
                  for (ReceivedMessage message :
                      broker.take(aggregateType, 500, Duration.ofMillis(20))) {
                    check.record(
                        message.key(),
                        E2eAggregate.Stepped.parse(message.body()).sequence(),
                        message.messageId());
                  }
                }
              } catch (InterruptedException e) {
                // closed
              }
            },
            "consumer-" + aggregateType);
    consumer.setDaemon(true);
    consumer.start();
    return () -> {
      consumer.interrupt();
      consumer.join(5_000);
    };
  }

  /** A destination never declared: the publisher calls that the message's fault, permanent. */
  @Override
  protected Poison preparePoison() {
    return new Poison(TestMessages.aggregateType("missing"), 1, List.of("no such destination"));
  }
}
