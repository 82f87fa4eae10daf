package dev.outbox.testkit.fake;

import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.List;

/**
 * The contract against the in-memory broker, from another package, as an adapter's test would
 * extend it: proves the contract passes for a publisher that behaves.
 */
class InMemoryPublisherContractTest extends EventPublisherContract {

  private final InMemoryBroker broker = new InMemoryBroker();

  @Override
  protected EventPublisher createPublisher() {
    return broker.publisher(Flaw.NONE);
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return broker.unreachablePublisher(Flaw.NONE);
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(broker.publisher(Flaw.NONE), broker);
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() {
    return broker.publisherWithWrongPassword(Flaw.NONE);
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
}
