package dev.outbox.testkit.fake;

import dev.outbox.testkit.BrokerSwitch;
import dev.outbox.testkit.ReceivedMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A broker in memory, honest about what it cannot do: it routes by aggregate type to destinations
 * that were declared, refuses messages for any other, and creates nothing on its own.
 */
public final class InMemoryBroker implements BrokerSwitch {

  /** Ways a publisher on this broker can be broken, to prove the contract notices. */
  public enum Flaw {
    NONE,
    REPORTS_UNROUTABLE_AS_PUBLISHED,
    DROPS_ROW_HEADERS,
    LETS_ROW_HEADERS_OVERRIDE,
    REVERSES_BATCH,
    SENDS_KEY_AS_EVENT_TYPE,
    THROWS_WHEN_UNREACHABLE,
    IGNORES_TIMEOUT_WHEN_UNREACHABLE,
    BLAMES_THE_MESSAGE_FOR_AN_OUTAGE,
    BLAMES_THE_BROKER_FOR_AN_UNROUTABLE_MESSAGE
  }

  /** The one user of this broker, whose credentials {@link #publisherWithWrongPassword} gives. */
  public static final String USER = "tester";

  private final Map<String, BlockingQueue<ReceivedMessage>> destinations =
      new ConcurrentHashMap<>();
  private volatile boolean down;

  /** Every publisher of this broker fails as if it could not reach it, until {@link #up()}. */
  @Override
  public void down() {
    down = true;
  }

  /** Publishers reach this broker again. */
  @Override
  public void up() {
    down = false;
  }

  boolean isDown() {
    return down;
  }

  /**
   * Declares a destination.
   *
   * @param name the destination, the aggregate type routed to it
   */
  public void declare(String name) {
    destinations.putIfAbsent(name, new LinkedBlockingQueue<>());
  }

  /**
   * A publisher connected to this broker.
   *
   * @param flaw how it is broken
   * @return the publisher
   */
  public InMemoryPublisher publisher(Flaw flaw) {
    return new InMemoryPublisher(this, InMemoryPublisher.Access.GRANTED, flaw);
  }

  /**
   * A publisher whose credentials this broker refuses.
   *
   * @param flaw how it is broken
   * @return the publisher
   */
  public InMemoryPublisher publisherWithWrongPassword(Flaw flaw) {
    return new InMemoryPublisher(this, InMemoryPublisher.Access.REFUSED, flaw);
  }

  /**
   * A publisher that cannot reach this broker.
   *
   * @param flaw how it is broken
   * @return the publisher
   */
  public InMemoryPublisher unreachablePublisher(Flaw flaw) {
    return new InMemoryPublisher(this, InMemoryPublisher.Access.UNREACHABLE, flaw);
  }

  /**
   * Takes up to {@code count} messages, waiting at most {@code timeout} in all.
   *
   * @param name the destination
   * @param count how many
   * @param timeout how long
   * @return the messages in arrival order
   * @throws InterruptedException when interrupted
   */
  public List<ReceivedMessage> take(String name, int count, Duration timeout)
      throws InterruptedException {
    BlockingQueue<ReceivedMessage> queue = destinations.get(name);
    List<ReceivedMessage> taken = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (queue != null && taken.size() < count) {
      ReceivedMessage next = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (next == null) {
        break;
      }
      taken.add(next);
    }
    return taken;
  }

  boolean deliver(String name, ReceivedMessage message) {
    BlockingQueue<ReceivedMessage> queue = destinations.get(name);
    return queue != null && queue.add(message);
  }
}
