package dev.outbox.rabbitmq.testing;

import dev.outbox.hibernate.testing.e2e.E2eAggregate.Stepped;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker.Delivered;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records the {@link Stepped} events a consumer takes from a queue, in arrival order, into a {@link
 * DeliveryCheck}. Deliveries that arrive before the check exists (the processor runs while the
 * writers still write) are kept and replayed into it in the same order.
 */
public final class StepRecorder {

  private final List<Delivered> early = new ArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private DeliveryCheck check;

  /** Records one delivery; for {@link RabbitMqTestBroker#consume}. */
  public synchronized void record(Delivered delivered) {
    count.incrementAndGet();
    if (check == null) {
      early.add(delivered);
    } else {
      recordInto(check, delivered);
    }
  }

  /** How many deliveries arrived so far. */
  public int count() {
    return count.get();
  }

  /** Hands the deliveries so far, and all later ones, to the check. */
  public synchronized DeliveryCheck attach(DeliveryCheck check) {
    early.forEach(delivered -> recordInto(check, delivered));
    early.clear();
    this.check = check;
    return check;
  }

  private static void recordInto(DeliveryCheck check, Delivered delivered) {
    Stepped step = Stepped.parse(delivered.body());
    check.record(step.aggregateId(), step.sequence(), delivered.properties().getMessageId());
  }
}
