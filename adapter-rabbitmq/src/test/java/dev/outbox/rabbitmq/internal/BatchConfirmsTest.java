package dev.outbox.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BatchConfirmsTest {

  private final List<OutboxMessage> batch = messages(4);
  private final BatchConfirms confirms = new BatchConfirms(batch, "events");

  @Test
  void aReturnedMessageFailsRetryablyEvenThoughTheBrokerAcksItAfterwards() {
    expectAll(10);
    confirms.returned(batch.get(1).id().toString(), 312, "NO_ROUTE", "order.placed");
    confirms.confirmed(13, true, true);

    List<PublishResult> results = confirms.results();
    assertThat(results)
        .extracting(PublishResult::isPublished)
        .containsExactly(true, false, true, true);
    assertThat(results.get(1).failure().isRetryable()).isTrue();
    assertThat(results.get(1).failure().isBrokerFault()).as("the message's fault").isFalse();
    assertThat(results.get(1).failure())
        .hasMessageContaining("unroutable")
        .hasMessageContaining("events")
        .hasMessageContaining("312 NO_ROUTE");
  }

  @Test
  void aMultipleAckConfirmsOnlyUpToItsSequenceNumber() throws Exception {
    expectAll(10);
    confirms.confirmed(11, true, true);

    assertThat(confirms.await(System.nanoTime() + 1_000_000)).isFalse();
    confirms.confirmed(12, false, true);
    confirms.confirmed(13, false, true);
    assertThat(confirms.await(System.nanoTime())).isTrue();
    assertThat(confirms.results()).allMatch(PublishResult::isPublished);
  }

  @Test
  void aNackFailsItsMessagesAsTheBrokersFault() {
    expectAll(1);
    confirms.confirmed(2, true, false);
    confirms.confirmed(4, true, true);

    List<PublishResult> results = confirms.results();
    assertThat(results)
        .extracting(PublishResult::isPublished)
        .containsExactly(false, false, true, true);
    assertThat(results.get(0).failure().isRetryable()).isTrue();
    assertThat(results.get(0).failure().isBrokerFault())
        .as("a full queue, not the message")
        .isTrue();
    assertThat(results.get(0).failure()).hasMessageContaining("negative publisher confirm");
  }

  @Test
  void abortFailsWhatIsUnconfirmedAndKeepsWhatWasConfirmed() throws Exception {
    expectAll(1);
    confirms.confirmed(2, true, true);
    confirms.abort(Blame.BROKER, true, "connection lost", null);

    assertThat(confirms.await(System.nanoTime())).isTrue();
    List<PublishResult> results = confirms.results();
    assertThat(results)
        .extracting(PublishResult::isPublished)
        .containsExactly(true, true, false, false);
    assertThat(results.get(3).failure().isRetryable()).isTrue();
    assertThat(results.get(3).failure().isBrokerFault()).isTrue();
    assertThat(results.get(3).failure())
        .hasMessageContaining("connection lost")
        .hasMessageContaining("may or may not have it");
  }

  @Test
  void aMessageNeverSentIsAFailureNotASuccess() {
    confirms.expect(1, 0);
    confirms.confirmed(1, false, true);

    assertThat(confirms.results())
        .extracting(PublishResult::isPublished)
        .containsExactly(true, false, false, false);
    assertThat(confirms.results().get(1).failure().isBrokerFault())
        .as("not sent, and nothing says it was the message's fault")
        .isTrue();
  }

  @Test
  void whatWasNeverSentIsBlamedAsTheCloseThatStoppedTheBatch() {
    confirms.expect(1, 0);
    confirms.expect(2, 1);
    confirms.abort(
        Blame.MESSAGE_RETRYABLE, true, "channel closed by the broker: 404 NOT_FOUND", null);

    List<PublishResult> results = confirms.results();
    assertThat(results).noneMatch(PublishResult::isPublished);
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.failure().isBrokerFault()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure()).hasMessageContaining("404 NOT_FOUND");
            });
    assertThat(results.get(3).failure()).hasMessageContaining("not sent to RabbitMQ");
  }

  @Test
  void aRefusedPublishDoesNotSayTheBrokerMayHaveTheMessage() {
    expectAll(1);
    confirms.abort(Blame.BROKER, false, "403 ACCESS_REFUSED", null);

    assertThat(confirms.results())
        .allSatisfy(
            r -> {
              assertThat(r.failure().isBrokerFault()).isTrue();
              assertThat(r.failure().getMessage()).doesNotContain("may or may not");
            });
  }

  @Test
  void aReturnOfAMessageOutsideTheBatchIsIgnored() {
    expectAll(1);
    confirms.returned(UUID.randomUUID().toString(), 312, "NO_ROUTE", "x");
    confirms.confirmed(4, true, true);

    assertThat(confirms.results()).allMatch(PublishResult::isPublished);
  }

  @Test
  void whatIsUnconfirmedAtTheDeadlineIsUncertainAndTheLateConfirmsCompleteItsFinalOutcome()
      throws Exception {
    expectAll(1);
    confirms.confirmed(1, false, true);

    assertThat(confirms.await(System.nanoTime())).isFalse();
    List<PublishResult> results = confirms.timedOut(Duration.ofSeconds(2));
    assertThat(results).extracting(PublishResult::isPublished).containsOnly(true, false);
    assertThat(results.get(0).isUncertain()).isFalse();
    assertThat(results.subList(1, 4))
        .allSatisfy(
            r -> {
              assertThat(r.isUncertain()).isTrue();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.destination()).isEqualTo("events");
            });
    assertThat(confirms.inDoubt()).isTrue();

    confirms.returned(batch.get(2).id().toString(), 312, "NO_ROUTE", "order.placed");
    confirms.confirmed(3, true, true);
    confirms.confirmed(4, false, false);

    assertThat(confirms.inDoubt()).isFalse();
    assertThat(confirms.settled().toCompletableFuture()).isCompleted();
    PublishResult acked = finalOf(results.get(1));
    PublishResult returned = finalOf(results.get(2));
    PublishResult nacked = finalOf(results.get(3));
    assertThat(acked.isPublished()).isTrue();
    assertThat(acked.isUncertain()).isFalse();
    assertThat(returned.failure()).hasMessageContaining("unroutable");
    assertThat(returned.isUncertain()).isFalse();
    assertThat(nacked.failure()).hasMessageContaining("negative publisher confirm");
    assertThat(nacked.isUncertain()).isFalse();
  }

  @Test
  void aChannelClosingCompletesTheUncertainFinalOutcomesAsRetryableFailures() throws Exception {
    expectAll(1);
    List<PublishResult> results = confirms.timedOut(Duration.ofSeconds(2));
    confirms.abort(Blame.BROKER, true, "the channel closed", null);

    assertThat(confirms.settled().toCompletableFuture()).isCompleted();
    for (PublishResult result : results) {
      PublishResult last = finalOf(result);
      assertThat(last.isPublished()).isFalse();
      assertThat(last.isUncertain()).isFalse();
      assertThat(last.failure().isRetryable()).isTrue();
      assertThat(last.failure().isBrokerFault()).isTrue();
      assertThat(last.failure())
          .hasMessageContaining("the channel closed")
          .hasMessageContaining("may or may not have it");
    }
    confirms.confirmed(4, true, true);
    assertThat(finalOf(results.get(0)).isPublished()).as("a late ack changes nothing").isFalse();
  }

  @Test
  void aBatchConfirmedInTimeIsNeverInDoubt() throws Exception {
    expectAll(1);
    confirms.confirmed(4, true, true);

    assertThat(confirms.await(System.nanoTime())).isTrue();
    assertThat(confirms.timedOut(Duration.ofSeconds(1))).noneMatch(PublishResult::isUncertain);
    assertThat(confirms.inDoubt()).isFalse();
    assertThat(confirms.settled().toCompletableFuture()).isCompleted();
  }

  private static PublishResult finalOf(PublishResult result) throws Exception {
    return result.finalOutcome().toCompletableFuture().get(1, TimeUnit.SECONDS);
  }

  private void expectAll(long firstSeqNo) {
    for (int i = 0; i < batch.size(); i++) {
      confirms.expect(firstSeqNo + i, i);
    }
  }

  private static List<OutboxMessage> messages(int count) {
    List<OutboxMessage> messages = new ArrayList<>();
    Instant now = Instant.now();
    for (int i = 0; i < count; i++) {
      messages.add(
          new OutboxMessage(
              UUID.randomUUID(),
              i,
              "order",
              "o-" + i,
              "order.placed",
              "application/json",
              "{}",
              Map.of(),
              now,
              now,
              0));
    }
    return messages;
  }
}
