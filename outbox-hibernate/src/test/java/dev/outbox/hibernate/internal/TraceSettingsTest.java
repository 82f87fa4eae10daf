package dev.outbox.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxException;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The persistence unit's trace settings reach the {@link JdbcOutbox} that traces. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TraceSettingsTest {

  private static final String TABLE = "ts_outbox";
  private static final String DEAD_LETTERS = "ts_dead_letters";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final EventPublisher broker =
      (messages, timeout) ->
          messages.stream().map(m -> PublishResult.published(m.id(), "orders")).toList();
  private DataSource dataSource;

  @BeforeAll
  void database() {
    TestDatabase.H2.assumeReachable();
    dataSource = TestDatabase.H2.dataSource();
  }

  @AfterAll
  void close() {
    if (dataSource != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    }
    sdk.close();
  }

  @Test
  void theOpenTelemetrySettingTracesThePublishes() {
    JdbcOutbox jdbc = build(Map.of(OutboxSettings.OPEN_TELEMETRY, sdk));

    jdbc.withPublishSpans(broker).publish(List.of(message()), Duration.ofSeconds(1));

    assertThat(exporter.getFinishedSpanItems())
        .singleElement()
        .satisfies(span -> assertThat(span.getName()).isEqualTo("publish orders"));
  }

  @Test
  void traceContextFalseTurnsThePublishSpansOff() {
    JdbcOutbox jdbc =
        build(
            Map.of(OutboxSettings.TRACE_CONTEXT, " FALSE ", OutboxSettings.OPEN_TELEMETRY, "otel"));

    assertThat(jdbc.withPublishSpans(broker)).isSameAs(broker);
  }

  @Test
  void withoutSettingsThePublishesAreTracedWithTheGlobalOpenTelemetry() {
    assertThat(build(Map.of()).withPublishSpans(broker)).isNotSameAs(broker);
  }

  @Test
  void anOpenTelemetrySettingOfAnotherTypeIsRefusedByName() {
    assertThatThrownBy(() -> build(Map.of(OutboxSettings.OPEN_TELEMETRY, "otel")))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining(OutboxSettings.OPEN_TELEMETRY)
        .hasMessageContaining("java.lang.String");
  }

  private JdbcOutbox build(Map<String, Object> settings) {
    JdbcOutbox.Builder builder =
        JdbcOutbox.builder(dataSource)
            .options(
                OutboxOptions.builder()
                    .outboxTable(TABLE)
                    .deadLetterTable(DEAD_LETTERS)
                    .createSchema(true)
                    .build());
    TraceSettings.apply(settings, builder);
    return builder.build();
  }

  private static OutboxMessage message() {
    Instant now = Instant.now();
    return new OutboxMessage(
        UUID.randomUUID(),
        1,
        "Order",
        "42",
        "order.placed",
        OutboxMessage.JSON,
        "{}",
        Map.of(),
        now,
        now,
        0);
  }
}
