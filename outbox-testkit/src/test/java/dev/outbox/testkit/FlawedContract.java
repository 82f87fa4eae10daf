package dev.outbox.testkit;

import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.fake.InMemoryBroker;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.List;

/** The contract on the in-memory broker with a broken publisher; not run on its own. */
final class FlawedContract extends EventPublisherContract {

  private final InMemoryBroker broker = new InMemoryBroker();
  private final Flaw flaw;

  FlawedContract(Flaw flaw) {
    this.flaw = flaw;
  }

  @Override
  protected EventPublisher createPublisher() {
    return broker.publisher(flaw);
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return broker.unreachablePublisher(flaw);
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(broker.publisher(flaw), broker);
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() {
    return broker.publisherWithWrongPassword(flaw);
  }

  @Override
  protected void prepareDestination(String aggregateType) {
    broker.declare(aggregateType);
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout)
      throws InterruptedException {
    return broker.take(aggregateType, count, timeout);
  }

  @Override
  protected Duration receiveTimeout() {
    return Duration.ofMillis(500);
  }
}
