package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.Outcome;
import dev.outbox.spi.PublishResult;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cycle of the processor: claim a batch, publish it as one call, record all outcomes at once.
 */
final class BatchCycle {

  private static final Logger LOG = LoggerFactory.getLogger(BatchCycle.class);

  private final OutboxOptions options;
  private final OutboxStore store;
  private final PublishCall publishCall;
  private final OutcomeRules rules;
  private final Clock clock;

  BatchCycle(OutboxOptions options, OutboxStore store, PublishCall publishCall, Clock clock) {
    this.options = options;
    this.store = store;
    this.publishCall = publishCall;
    this.rules = new OutcomeRules(options);
    this.clock = clock;
  }

  /**
   * Runs the cycle.
   *
   * @return how many messages were claimed
   */
  int run() {
    ClaimRequest request =
        new ClaimRequest(
            options.instanceId(),
            options.batchSize(),
            clock.instant(),
            options.leaseDuration(),
            options.orderedPerAggregate(),
            options.holdAggregateOnDeadLetter());
    List<OutboxMessage> batch = store.claim(request);
    if (batch.isEmpty()) {
      return 0;
    }
    List<PublishResult> results = publishCall.publish(batch);
    Instant now = clock.instant();
    List<Outcome> outcomes = new ArrayList<>(batch.size());
    int published = 0;
    for (int i = 0; i < batch.size(); i++) {
      Outcome outcome = rules.decide(batch.get(i), results.get(i), now);
      if (outcome instanceof Outcome.Published) {
        published++;
      }
      outcomes.add(outcome);
    }
    store.record(options.instanceId(), outcomes);
    LOG.debug(
        "Batch of {}: {} published, {} failed", batch.size(), published, batch.size() - published);
    return batch.size();
  }
}
