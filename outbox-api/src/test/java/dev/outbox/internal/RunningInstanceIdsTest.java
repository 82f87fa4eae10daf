package dev.outbox.internal;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.OutboxStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.StandardErrorCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No two outboxes running in one JVM run under one instance id: a generated id a running outbox
 * holds is taken with a suffix (and a warning when they share the store), a set one with a suffix
 * and a warning, and a closed outbox frees its id.
 */
class RunningInstanceIdsTest {

  private final InMemoryOutboxStore store = new InMemoryOutboxStore(Clock.systemUTC());
  private final StandardErrorCapture standardError = new StandardErrorCapture();
  private final List<Outbox> outboxes = new ArrayList<>();

  @AfterEach
  void close() {
    outboxes.forEach(Outbox::close);
    standardError.close();
  }

  private static OutboxOptions.Builder options() {
    return OutboxOptions.builder().pollInterval(Duration.ofMillis(20));
  }

  private Outbox outbox(OutboxOptions options, OutboxStore store, ScriptedPublisher publisher) {
    Outbox outbox = Outbox.create(options, store, publisher, Clock.systemUTC());
    outboxes.add(outbox);
    return outbox;
  }

  private Outbox outbox(OutboxOptions options) {
    return outbox(options, store, new ScriptedPublisher());
  }

  /** The warnings written so far that name the id. */
  private List<String> warningsNaming(String id) {
    return standardError.lines().stream()
        .filter(line -> line.contains(" WARN ") && line.contains(id))
        .toList();
  }

  private static boolean threadRuns(String name) {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name));
  }

  @Test
  void twoOutboxesOnOneOptionsAndStoreRunUnderDistinctIdsWarnThatTheySplitAndDeliverEachOnce() {
    OutboxOptions options = options().build();
    String id = options.instanceId();
    for (int i = 0; i < 40; i++) {
      store.add("Order", "o-" + (i % 20), "order.placed");
    }
    ScriptedPublisher firstBroker = new ScriptedPublisher();
    ScriptedPublisher secondBroker = new ScriptedPublisher();
    Outbox first = outbox(options, store, firstBroker);
    Outbox second = outbox(options, store, secondBroker);

    first.start();
    second.start();

    assertThat(first.health().instanceId()).isEqualTo(id);
    assertThat(second.health().instanceId()).isEqualTo(id + "-2");
    assertThat(second).hasToString("Outbox[" + id + "-2, RUNNING]");
    assertThat(threadRuns("outbox-processor-" + id + "-2")).isTrue();
    assertThat(warningsNaming(id + "-2"))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains(
                        "Outbox "
                            + id
                            + "-2 delivers from the same store as outbox "
                            + id
                            + ", running in this JVM: they split the store's messages between"
                            + " them, each message going to one of them only.")
                    .contains("It runs as " + id + "-2 because outbox " + id + " holds " + id)
                    .contains("close the extra one")
                    .contains("set instanceId per outbox"));

    await().atMost(Duration.ofSeconds(10)).until(() -> store.count(Status.PUBLISHED) == 40);
    List<UUID> delivered =
        Stream.concat(firstBroker.acknowledged().stream(), secondBroker.acknowledged().stream())
            .map(OutboxMessage::id)
            .toList();
    assertThat(delivered)
        .as("each message to one of them, once")
        .hasSize(40)
        .doesNotHaveDuplicates();
  }

  @Test
  void aThirdOutboxTakesTheNextSuffixAndOptionsCopiedWithToBuilderKeepTheGeneratedId() {
    OutboxOptions options = options().build();
    String id = options.instanceId();
    outbox(options).start();
    outbox(options.toBuilder().batchSize(5).build()).start();
    Outbox third = outbox(options.toBuilder().maxAttempts(3).build());

    third.start();

    assertThat(third.health().instanceId()).isEqualTo(id + "-3");
  }

  @Test
  void aSetIdThatARunningOutboxHoldsIsTakenWithASuffixAndAWarningNamingTheFix() {
    OutboxOptions options = options().instanceId("held-id-test").build();
    Outbox first = outbox(options);
    Outbox second =
        outbox(options, new InMemoryOutboxStore(Clock.systemUTC()), new ScriptedPublisher());
    first.start();

    second.start();

    assertThat(first.health().instanceId()).isEqualTo("held-id-test");
    assertThat(second.health().instanceId()).isEqualTo("held-id-test-2");
    assertThat(second.isRunning()).isTrue();
    assertThat(warningsNaming("held-id-test-2"))
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("It runs as held-id-test-2 because outbox held-id-test holds held-id-test")
        .contains("the instance id set for both: set one of its own for each outbox");

    second.close();
    first.close();
    Outbox third = outbox(options);
    third.start();

    assertThat(third.health().instanceId()).as("free once both closed").isEqualTo("held-id-test");
  }

  @Test
  void aClosedOutboxFreesItsIdAndOneNotStartedHoldsNone() {
    OutboxOptions options = options().build();
    String id = options.instanceId();
    Outbox notStarted = outbox(options);
    Outbox first = outbox(options);
    first.start();
    first.close();
    Outbox next = outbox(options);

    next.start();

    assertThat(next.health().instanceId()).isEqualTo(id);
    assertThat(notStarted.health().instanceId()).isEqualTo(id);
    assertThat(warningsNaming(id)).isEmpty();
  }

  @Test
  void outboxesWithIdsOfTheirOwnOnOneStoreSplitItWithoutAWarning() {
    Outbox first = outbox(options().instanceId("own-id-a").build());
    Outbox second = outbox(options().instanceId("own-id-b").build());

    first.start();
    second.start();

    assertThat(second.health().instanceId()).isEqualTo("own-id-b");
    assertThat(warningsNaming("own-id-")).isEmpty();
  }

  @Test
  void oneOptionsOnTwoStoresRunUnderDistinctIdsWithoutAWarning() {
    OutboxOptions options = options().build();
    String id = options.instanceId();
    Outbox first = outbox(options);
    Outbox second =
        outbox(options, new InMemoryOutboxStore(Clock.systemUTC()), new ScriptedPublisher());

    first.start();
    second.start();

    assertThat(second.health().instanceId()).isEqualTo(id + "-2");
    assertThat(warningsNaming(id)).as("nothing is split; the id's info line is enough").isEmpty();
  }
}
