package dev.outbox.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SendOutcomesTest {

  private final List<OutboxMessage> batch = TestMessages.batch("orders", 2, 2);
  private final SendOutcomes outcomes = new SendOutcomes(batch);

  private List<PublishResult> results() {
    return outcomes.results(
        Duration.ofSeconds(2), i -> "orders", i -> Failures.notSent(batch.get(i).id(), "orders"));
  }

  @Test
  void aSendUnansweredAtTheDeadlineIsUncertainAndItsCompletionIsTheFinalOutcome() throws Exception {
    assertThat(outcomes.start(List.of(0, 1))).isTrue();
    outcomes.complete(0, PublishResult.published(batch.get(0).id()));
    assertThat(outcomes.start(List.of(2))).isTrue();
    outcomes.fail(3, PublishException.retryable(batch.get(3).id(), "orders", "bad", null));

    List<PublishResult> results = results();

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).isUncertain()).isTrue();
    assertThat(results.get(1).destination()).isEqualTo("orders");
    assertThat(results.get(2).isUncertain()).isTrue();
    assertThat(results.get(3).isUncertain()).isFalse();
    assertThat(results.get(3).failure()).hasMessageContaining("bad");

    outcomes.complete(1, PublishResult.published(batch.get(1).id()));
    outcomes.fail(2, PublishException.retryable(batch.get(2).id(), "orders", "late", null));
    assertThat(finalOf(results.get(1)).isPublished()).isTrue();
    assertThat(results.get(2).finalOutcome().toCompletableFuture())
        .as("a message claimed by a send is decided by that send only")
        .isNotDone();
    outcomes.complete(2, PublishResult.published(batch.get(2).id()));
    assertThat(finalOf(results.get(2)).isPublished()).isTrue();
  }

  @Test
  void aMessageNeverSentFailsAtTheDeadlineAndNoSendStartsAfterIt() {
    List<PublishResult> results = results();

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.isUncertain()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure()).hasMessageContaining("not sent");
            });
    assertThat(outcomes.start(List.of(0))).isFalse();
  }

  private static PublishResult finalOf(PublishResult result) throws Exception {
    return result.finalOutcome().toCompletableFuture().get(1, TimeUnit.SECONDS);
  }
}
