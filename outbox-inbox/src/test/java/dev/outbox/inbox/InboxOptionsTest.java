package dev.outbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InboxOptionsTest {

  private static InboxOptions.Builder billing() {
    return InboxOptions.builder().source("billing");
  }

  @Test
  void everyOptionButTheSourceHasItsDocumentedDefault() {
    InboxOptions options = billing().build();
    assertThat(options.source()).isEqualTo("billing");
    assertThat(options.positionsTable()).isEqualTo("inbox_positions");
    assertThat(options.receivedIdsTable()).isEqualTo("inbox_received_ids");
    assertThat(options.gapPolicy()).isEqualTo(GapPolicy.WAIT);
    assertThat(options.positionRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(options.idRetention()).isEqualTo(Duration.ofDays(7));
    assertThat(options.cleanupInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(options.cleanupBatchSize()).isEqualTo(1000);
    assertThat(options.createSchema()).isFalse();
    assertThat(options.listeners()).isEmpty();
  }

  @Test
  void theSourceIsRequiredAndSaysWhatItIsFor() {
    assertThatThrownBy(() -> InboxOptions.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source must be set")
        .hasMessageContaining("source(\"billing\")");
  }

  @Test
  void aBlankOrOverlongSourceIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> InboxOptions.builder().source(" "))
        .hasMessage("source must not be blank, but was \" \"");
    assertThatThrownBy(() -> InboxOptions.builder().source(null))
        .hasMessage("source must not be blank, but was null");
    assertThatThrownBy(() -> InboxOptions.builder().source("x".repeat(101)))
        .hasMessageContaining("source must be at most 100 characters")
        .hasMessageContaining("but was 101 characters");
  }

  @Test
  void tableNamesMustBePlainIdentifiers() {
    assertThat(billing().positionsTable("app.positions").build().positionsTable())
        .isEqualTo("app.positions");
    assertThatThrownBy(() -> billing().positionsTable("positions; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("positionsTable must be a plain SQL identifier")
        .hasMessageEndingWith("but was \"positions; DROP TABLE x\"");
    assertThatThrownBy(() -> billing().receivedIdsTable("1ids"))
        .hasMessageStartingWith("receivedIdsTable must be a plain SQL identifier");
    assertThatThrownBy(() -> billing().receivedIdsTable("a".repeat(41)))
        .hasMessageContaining("at most 40 characters");
    assertThatThrownBy(() -> billing().receivedIdsTable(null)).hasMessageEndingWith("but was null");
  }

  @Test
  void theTwoTablesMustDiffer() {
    assertThatThrownBy(() -> billing().positionsTable("inbox").receivedIdsTable("INBOX").build())
        .hasMessage("receivedIdsTable must differ from positionsTable, but both were inbox");
  }

  @Test
  void durationsMustBePositive() {
    assertThatThrownBy(() -> billing().positionRetention(Duration.ZERO))
        .hasMessage("positionRetention must be > 0, but was PT0S");
    assertThatThrownBy(() -> billing().idRetention(Duration.ofSeconds(-1)))
        .hasMessage("idRetention must be > 0, but was PT-1S");
    assertThatThrownBy(() -> billing().cleanupInterval(null))
        .hasMessage("cleanupInterval must be > 0, but was null");
  }

  @Test
  void theCleanupBatchSizeIsBounded() {
    assertThat(billing().cleanupBatchSize(10_000).build().cleanupBatchSize()).isEqualTo(10_000);
    assertThatThrownBy(() -> billing().cleanupBatchSize(0))
        .hasMessage("cleanupBatchSize must be between 1 and 10000, but was 0");
    assertThatThrownBy(() -> billing().cleanupBatchSize(10_001))
        .hasMessage("cleanupBatchSize must be between 1 and 10000, but was 10001");
  }

  @Test
  void theGapPolicyAndListenersMustNotBeNull() {
    assertThatThrownBy(() -> billing().gapPolicy(null))
        .hasMessageContaining("gapPolicy must not be null");
    assertThatThrownBy(() -> billing().listener(null)).hasMessage("listener must not be null");
  }

  @Test
  void toBuilderKeepsEveryOptionAndTheCopyIsIndependent() {
    InboxListener listener = new InboxListener() {};
    InboxOptions original =
        billing()
            .positionsTable("p")
            .receivedIdsTable("r")
            .gapPolicy(GapPolicy.FAIL)
            .positionRetention(Duration.ofDays(60))
            .idRetention(Duration.ofDays(2))
            .cleanupInterval(Duration.ofSeconds(5))
            .cleanupBatchSize(50)
            .createSchema(true)
            .listener(listener)
            .build();
    InboxOptions copy = original.toBuilder().build();
    assertThat(copy).usingRecursiveComparison().isEqualTo(original);
    InboxOptions changed = original.toBuilder().source("shipping").listener(listener).build();
    assertThat(changed.source()).isEqualTo("shipping");
    assertThat(changed.listeners()).hasSize(2);
    assertThat(original.source()).isEqualTo("billing");
    assertThat(original.listeners()).containsExactly(listener);
    assertThat(original.toString()).contains("source=billing", "gapPolicy=FAIL");
  }

  @Test
  void fromMapReadsEveryKeyInTheOneGrammarAndRefusesAnUnknownOne() {
    InboxOptions options =
        InboxOptions.fromMap(
            Map.of(
                "outbox.inbox.source", "billing",
                "outbox.inbox.gap-policy", "apply",
                "OUTBOX_INBOX_POSITION_RETENTION", "45d",
                "outbox.inbox.id-retention", "12h",
                "outbox.inbox.cleanup-interval", "30s",
                "outbox.inbox.cleanup-batch-size", "500",
                "outbox.inbox.positions-table", "billing_positions",
                "outbox.inbox.received-ids-table", "billing_ids",
                "outbox.inbox.create-schema", "true",
                "outbox.poll-interval", "1s"),
            "outbox.inbox");

    assertThat(options.source()).isEqualTo("billing");
    assertThat(options.gapPolicy()).isEqualTo(GapPolicy.APPLY);
    assertThat(options.positionRetention()).isEqualTo(Duration.ofDays(45));
    assertThat(options.idRetention()).isEqualTo(Duration.ofHours(12));
    assertThat(options.cleanupInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.cleanupBatchSize()).isEqualTo(500);
    assertThat(options.positionsTable()).isEqualTo("billing_positions");
    assertThat(options.receivedIdsTable()).isEqualTo("billing_ids");
    assertThat(options.createSchema()).isTrue();
    assertThat(InboxOptions.keys("outbox.inbox"))
        .contains("outbox.inbox.source", "outbox.inbox.gap-policy")
        .hasSize(9);
    assertThatThrownBy(
            () ->
                InboxOptions.fromMap(
                    Map.of("outbox.inbox.source", "billing", "outbox.inbox.gap-polcy", "apply"),
                    "outbox.inbox"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outbox.inbox.gap-polcy");
  }
}
