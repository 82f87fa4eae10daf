package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A {@link JdbcOutbox} carries the trace context as the Hibernate path does: a send stores the
 * {@code traceparent} of the span active at the send, and its processor publishes each message in a
 * span under that context; with the trace context off, neither.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2TraceContextIT {

  private static final String TABLE = "tc_outbox";
  private static final String DEAD_LETTERS = "tc_dead_letters";
  private static final TestDatabase DATABASE = TestDatabase.H2;

  record PaymentRequested(String amount) implements DomainEvent {}

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private DataSource dataSource;
  private OutboxTable table;

  @BeforeAll
  void createTables() {
    DATABASE.assumeReachable();
    dataSource = DATABASE.dataSource();
    OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    outbox(builder -> builder); // creates the tables
    table = new OutboxTable(dataSource, TABLE);
  }

  @AfterAll
  void dropTables() {
    if (dataSource != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    }
    sdk.close();
  }

  @BeforeEach
  void emptyTables() {
    exporter.reset();
    table.clear();
    OutboxTable.deleteAll(dataSource, DEAD_LETTERS);
  }

  @Test
  void aSendInsideAnActiveSpanStoresItsTraceparent() throws Exception {
    JdbcOutbox jdbc = outbox(builder -> builder);

    Span span = sendInSpan(jdbc, "p-1");

    assertThat(headersOfOnlyRow()).containsEntry("traceparent", traceparent(span));
  }

  @Test
  void withTheTraceContextOffASendStoresNone() throws Exception {
    JdbcOutbox jdbc = outbox(builder -> builder.traceContext(false));

    sendInSpan(jdbc, "p-2");

    assertThat(headersOfOnlyRow()).doesNotContainKey("traceparent");
  }

  @Test
  void theApplicationsHeaderProvidersComeAfterTheTraceContext() throws Exception {
    JdbcOutbox jdbc =
        outbox(
            builder -> builder.headerProvider((event, type, id) -> Map.of("traceparent", "mine")));

    sendInSpan(jdbc, "p-3");

    assertThat(headersOfOnlyRow()).containsEntry("traceparent", "mine");
  }

  @Test
  void theProcessorPublishesEachMessageInASpanUnderTheStoredContext() {
    JdbcOutbox jdbc = outbox(builder -> builder.openTelemetry(sdk));
    List<OutboxMessage> published = new CopyOnWriteArrayList<>();
    try (Outbox outbox = jdbc.outbox(recording(published))) {
      outbox.start();

      Span business = sendInSpan(jdbc, "p-4");

      SpanData publish =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      exporter.getFinishedSpanItems().stream()
                          .filter(span -> span.getKind() == SpanKind.PRODUCER)
                          .findFirst(),
                  Optional::isPresent)
              .orElseThrow();
      assertThat(publish.getName()).isEqualTo("publish payments");
      assertThat(publish.getTraceId()).isEqualTo(business.getSpanContext().getTraceId());
      assertThat(publish.getParentSpanId()).isEqualTo(business.getSpanContext().getSpanId());
      assertThat(published)
          .singleElement()
          .satisfies(
              message ->
                  assertThat(message.headers())
                      .containsEntry(
                          "traceparent",
                          "00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-01"));
    }
  }

  @Test
  void withTheTraceContextOffThePublisherIsUsedAsItIs() {
    JdbcOutbox jdbc = outbox(builder -> builder.traceContext(false).openTelemetry(sdk));
    EventPublisher publisher = recording(new CopyOnWriteArrayList<>());

    assertThat(jdbc.withPublishSpans(publisher)).isSameAs(publisher);
  }

  @Test
  void anOpenTelemetryOfAnotherTypeIsRefused() {
    assertThatThrownBy(() -> JdbcOutbox.builder(dataSource).openTelemetry("otel"))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("openTelemetry must be an io.opentelemetry.api.OpenTelemetry")
        .hasMessageContaining("java.lang.String");
  }

  private JdbcOutbox outbox(UnaryOperator<JdbcOutbox.Builder> configure) {
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(TABLE)
            .deadLetterTable(DEAD_LETTERS)
            .createSchema(true)
            .pollInterval(Duration.ofMillis(200))
            .build();
    return configure.apply(JdbcOutbox.builder(dataSource).options(options)).build();
  }

  private Span sendInSpan(JdbcOutbox jdbc, String paymentId) {
    Span span = sdk.getTracer("payments").spanBuilder("request payment").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      jdbc.inTransaction(
          connection -> {
            jdbc.send(connection, "Payment", paymentId, new PaymentRequested("10.00"));
            return null;
          });
    } finally {
      span.end();
    }
    return span;
  }

  private static EventPublisher recording(List<OutboxMessage> published) {
    return new EventPublisher() {
      @Override
      public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
        published.addAll(messages);
        return messages.stream().map(m -> PublishResult.published(m.id(), "payments")).toList();
      }

      @Override
      public String messagingSystem() {
        return "test";
      }
    };
  }

  private static String traceparent(Span span) {
    SpanContext context = span.getSpanContext();
    return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-01";
  }

  private Map<String, String> headersOfOnlyRow() throws Exception {
    List<OutboxTable.Row> rows = table.rows();
    assertThat(rows).hasSize(1);
    return new ObjectMapper().readValue(rows.get(0).headers(), new TypeReference<>() {});
  }
}
