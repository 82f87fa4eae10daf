package dev.outbox.servicebus.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * What became of each message of one publish call, shared by the calling thread and the {@link
 * EntitySend}s. Each message has a final outcome that completes exactly once: with its failure when
 * it is not sent, or with what the SDK reports when the send that holds it completes. No send
 * starts after the call's deadline ({@link #start} says no once {@link #results} ran), so at the
 * deadline each message is either final, or in a send that started and did not complete, which
 * makes it uncertain: the send may still land, and its completion is the final outcome.
 */
public final class SendOutcomes {

  private final List<OutboxMessage> messages;
  private final List<CompletableFuture<PublishResult>> outcomes;
  private final boolean[] started;
  private boolean expired;

  /**
   * The outcomes of a call.
   *
   * @param messages the batch of the call
   */
  public SendOutcomes(List<OutboxMessage> messages) {
    this.messages = messages;
    this.outcomes = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      outcomes.add(new CompletableFuture<>());
    }
    this.started = new boolean[messages.size()];
  }

  /**
   * Claims messages for a send that is about to start: from now on only that send's completion
   * decides them.
   *
   * @param indexes the positions of the send's messages
   * @return {@code false} when the call's deadline passed: the send must not start
   */
  synchronized boolean start(List<Integer> indexes) {
    if (expired) {
      return false;
    }
    indexes.forEach(index -> started[index] = true);
    return true;
  }

  /**
   * A message that was not sent (or was refused before any send): final at once. Does nothing for a
   * message already claimed by a send, or already final.
   *
   * @param index its position
   * @param failure why
   */
  public void fail(int index, PublishException failure) {
    synchronized (this) {
      if (started[index]) {
        return;
      }
    }
    outcomes.get(index).complete(PublishResult.failed(messages.get(index).id(), failure));
  }

  /**
   * The final outcome of a message a send claimed: what the SDK reported.
   *
   * @param index its position
   * @param result its final result
   */
  void complete(int index, PublishResult result) {
    outcomes.get(index).complete(result);
  }

  /**
   * Ends the call: no send starts any more. A message whose send started and has not completed is
   * uncertain, with the send's completion as its final outcome; a message never sent fails.
   *
   * @param timeout the time the call was given, for the uncertain results
   * @param entityOf the entity of a position, or {@code null}
   * @param notSent the failure of a message that was never sent, by position
   * @return one result per message, in order
   */
  public List<PublishResult> results(
      Duration timeout, IntFunction<String> entityOf, IntFunction<PublishException> notSent) {
    boolean[] sent;
    synchronized (this) {
      expired = true;
      sent = started.clone();
    }
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      CompletableFuture<PublishResult> outcome = outcomes.get(i);
      if (!outcome.isDone()) {
        if (sent[i]) {
          results.add(
              PublishResult.uncertain(messages.get(i).id(), entityOf.apply(i), timeout, outcome));
          continue;
        }
        outcome.complete(PublishResult.failed(messages.get(i).id(), notSent.apply(i)));
      }
      results.add(outcome.join());
    }
    return results;
  }
}
