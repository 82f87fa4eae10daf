package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class OutboxOptionsTest {

  @Test
  void defaultsAreDocumentedConstants() {
    OutboxOptions options = OutboxOptions.defaults();
    assertThat(options.outboxTable()).isEqualTo("outbox_messages");
    assertThat(options.deadLetterTable()).isEqualTo("outbox_dead_letters");
    assertThat(options.createSchema()).isFalse();
    assertThat(options.serializer()).isEmpty();
    assertThat(options.batchSize()).isEqualTo(OutboxOptions.DEFAULT_BATCH_SIZE);
    assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(options.leaseDuration()).isGreaterThan(options.publishTimeout());
    assertThat(options.orderedPerAggregate()).isTrue();
    assertThat(options.holdAggregateOnDeadLetter()).isFalse();
    assertThat(options.vacuumThreshold()).isEqualTo(OutboxOptions.DEFAULT_VACUUM_THRESHOLD);
    assertThat(options.instanceId()).isNotBlank();
  }

  @Test
  void toBuilderKeepsEveryFieldAndChangesOnlyWhatIsSet() {
    OutboxOptions original =
        OutboxOptions.builder()
            .outboxTable("app.events")
            .batchSize(7)
            .retention(Duration.ZERO)
            .vacuumThreshold(0)
            .instanceId("node-1")
            .build();
    OutboxOptions changed = original.toBuilder().maxAttempts(3).build();
    assertThat(changed.outboxTable()).isEqualTo("app.events");
    assertThat(changed.batchSize()).isEqualTo(7);
    assertThat(changed.retention()).isZero();
    assertThat(changed.vacuumThreshold()).isZero();
    assertThat(changed.instanceId()).isEqualTo("node-1");
    assertThat(changed.maxAttempts()).isEqualTo(3);
    assertThat(original.maxAttempts()).isEqualTo(OutboxOptions.DEFAULT_MAX_ATTEMPTS);
  }

  @Test
  void aGeneratedInstanceIdStaysGeneratedThroughToBuilderAndASetOneStaysSet() {
    OutboxOptions generated = OutboxOptions.builder().build();
    OutboxOptions copied = generated.toBuilder().batchSize(5).build();
    OutboxOptions set = generated.toBuilder().instanceId("node-1").build();
    OutboxOptions bound = OutboxOptions.fromMap(Map.of("outbox.instance-id", "node-2"), "outbox");

    assertThat(generated.instanceIdSet()).isFalse();
    assertThat(copied.instanceId()).isEqualTo(generated.instanceId());
    assertThat(copied.instanceIdSet()).isFalse();
    assertThat(set.instanceIdSet()).isTrue();
    assertThat(set.toBuilder().maxAttempts(3).build().instanceIdSet()).isTrue();
    assertThat(bound.instanceIdSet()).isTrue();
    assertThat(OutboxOptions.builder().build().instanceId())
        .as("generated once per options object")
        .isNotEqualTo(generated.instanceId());
  }

  @Test
  void setterNamesFieldAndBadValue() {
    assertThatThrownBy(() -> OutboxOptions.builder().batchSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize must be between 1 and 10000, but was -1");
    assertThatThrownBy(() -> OutboxOptions.builder().pollInterval(Duration.ofSeconds(-2)))
        .hasMessage("pollInterval must be > 0, but was PT-2S");
    assertThatThrownBy(() -> OutboxOptions.builder().retention(null))
        .hasMessage("retention must be >= 0, but was null");
    assertThatThrownBy(() -> OutboxOptions.builder().maxAttempts(0))
        .hasMessage("maxAttempts must be >= 1, but was 0");
    assertThatThrownBy(() -> OutboxOptions.builder().vacuumThreshold(-5))
        .hasMessage("vacuumThreshold must be between 0 and 1000000000, but was -5");
    assertThatThrownBy(() -> OutboxOptions.builder().instanceId(" "))
        .hasMessageContaining("instanceId");
    assertThatThrownBy(() -> OutboxOptions.builder().brokerProbeInterval(Duration.ZERO))
        .hasMessage("brokerProbeInterval must be > 0, but was PT0S");
    assertThatThrownBy(() -> OutboxOptions.builder().brokerOutageTolerance(Duration.ofMinutes(-1)))
        .hasMessage("brokerOutageTolerance must be >= 0, but was PT-1M");
    assertThatThrownBy(
            () -> OutboxOptions.fromMap(Map.of("outbox.broker-probe-interval", "soon"), "outbox"))
        .hasMessageContaining("broker-probe-interval");
  }

  @Test
  void tableNameThatIsNotAPlainIdentifierIsRefused() {
    for (String bad :
        new String[] {
          "", "1abc", "outbox; drop table x", "a.b.c", "\"quoted\"", "a-b", " a", "x".repeat(41)
        }) {
      assertThatThrownBy(() -> OutboxOptions.builder().outboxTable(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("outboxTable must be a plain SQL identifier")
          .hasMessageEndingWith('"' + bad + '"');
    }
    assertThat(OutboxOptions.builder().deadLetterTable("ops.dead_1").build().deadLetterTable())
        .isEqualTo("ops.dead_1");
  }

  @Test
  void leaseNotLongerThanPublishTimeoutFailsAtBuild() {
    OutboxOptions.Builder builder =
        OutboxOptions.builder()
            .publishTimeout(Duration.ofSeconds(30))
            .leaseDuration(Duration.ofSeconds(30));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("leaseDuration must be longer than publishTimeout (PT30S)");
  }

  @Test
  void headTableAndPublishedViewAreNamedAfterTheOutboxTable() {
    OutboxOptions defaults = OutboxOptions.defaults();
    assertThat(defaults.headTable()).isEqualTo("outbox_heads");
    assertThat(defaults.publishedView()).isEqualTo("outbox_published");
    OutboxOptions custom = OutboxOptions.builder().outboxTable("app.events").build();
    assertThat(custom.headTable()).isEqualTo("app.events_heads");
    assertThat(custom.publishedView()).isEqualTo("app.events_published");
  }

  @Test
  void aDeadLetterTableNamedLikeTheHeadTableFailsAtBuild() {
    assertThatThrownBy(() -> OutboxOptions.builder().deadLetterTable("outbox_heads").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deadLetterTable must differ from the head table");
  }

  @Test
  void sameTableForOutboxAndDeadLettersFailsAtBuild() {
    assertThatThrownBy(() -> OutboxOptions.builder().outboxTable("t").deadLetterTable("T").build())
        .hasMessageContaining("deadLetterTable must differ from outboxTable");
  }

  @Test
  void durationsSoLongThatTimeArithmeticWouldOverflowAreRefused() {
    Duration tooLong = Duration.ofDays(36_501);
    assertThatThrownBy(() -> OutboxOptions.builder().retention(tooLong))
        .hasMessageStartingWith("retention must be at most");
    assertThatThrownBy(() -> RetryPolicy.fixed(tooLong))
        .hasMessageStartingWith("delay must be at most");
  }

  @Test
  void aPublishTimeoutOrALeaseOfDaysIsRefusedWithTheBoundAndWhy() {
    Duration days = Duration.ofDays(1_000);
    assertThatThrownBy(() -> OutboxOptions.builder().publishTimeout(days))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "publishTimeout must be at most PT10M (a broker that has not answered in that time is"
                + " down; the batch is retried), but was PT24000H");
    assertThatThrownBy(() -> OutboxOptions.builder().leaseDuration(days))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "leaseDuration must be at most PT1H (the aggregates of an instance that stopped without"
                + " closing wait that long), but was PT24000H");
    OutboxOptions longest =
        OutboxOptions.builder()
            .publishTimeout(Duration.ofMinutes(10))
            .leaseDuration(Duration.ofHours(1))
            .build();
    assertThat(longest.leaseDuration()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void optionsAreReadFromPropertiesAndFromTheEnvironmentWithTheSameKeys() {
    Properties properties = new Properties();
    properties.setProperty("outbox.batch-size", "250");
    properties.setProperty("outbox.poll-interval", "200ms");
    properties.setProperty("outbox.lease-duration", "2m");
    properties.setProperty("outbox.retry-initial-delay", "PT2S");
    properties.setProperty("outbox.hold-aggregate-on-dead-letter", "true");
    properties.setProperty("outbox.failure-log-level", "error");
    properties.setProperty("outbox.delivery-mode", "cdc");
    properties.setProperty("outbox.kafka.bootstrap-servers", "left to the Kafka adapter");
    Map<String, String> environment =
        Map.of(
            "OUTBOX_BATCH_SIZE", "250",
            "OUTBOX_POLL_INTERVAL", "200ms",
            "OUTBOX_LEASE_DURATION", "2m",
            "OUTBOX_RETRY_INITIAL_DELAY", "2s",
            "OUTBOX_HOLD_AGGREGATE_ON_DEAD_LETTER", "TRUE",
            "OUTBOX_FAILURE_LOG_LEVEL", "ERROR",
            "OUTBOX_DELIVERY_MODE", "CDC",
            "HOME", "/root");

    for (OutboxOptions options :
        List.of(
            OutboxOptions.fromProperties(properties, "outbox"),
            OutboxOptions.fromMap(environment, "OUTBOX_"))) {
      assertThat(options.batchSize()).isEqualTo(250);
      assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(200));
      assertThat(options.leaseDuration()).isEqualTo(Duration.ofMinutes(2));
      assertThat(options.retryPolicy().initialDelay()).isEqualTo(Duration.ofSeconds(2));
      assertThat(options.retryPolicy().maxDelay())
          .isEqualTo(OutboxOptions.DEFAULT_RETRY_POLICY.maxDelay());
      assertThat(options.holdAggregateOnDeadLetter()).isTrue();
      assertThat(options.failureLogLevel()).isEqualTo(Level.ERROR);
      assertThat(options.deliveryMode()).isEqualTo(DeliveryMode.CDC);
    }
  }

  @Test
  void anUnknownOutboxKeyOrABadValueNamesTheKey() {
    assertThatThrownBy(() -> OutboxOptions.fromMap(Map.of("OUTBOX_BATCHSIZE", "5"), "OUTBOX"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Unknown outbox option OUTBOX_BATCHSIZE; the known keys are")
        .hasMessageContaining("outbox.batch-size");
    assertThatThrownBy(() -> OutboxOptions.fromMap(Map.of("outbox.batch-size", "0"), "outbox"))
        .hasMessageStartingWith("outbox.batch-size: batchSize must be");
    assertThatThrownBy(
            () -> OutboxOptions.fromMap(Map.of("outbox.publish-timeout", "1d"), "outbox"))
        .hasMessageStartingWith("outbox.publish-timeout: publishTimeout must be at most PT10M");
  }
}
