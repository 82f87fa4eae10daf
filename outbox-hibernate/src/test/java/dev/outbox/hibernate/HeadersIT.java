package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Rows carry the trace context of the span active at commit and what header providers add. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeadersIT {

  private static final String TABLE = "hd_outbox";
  private static final String DEAD_LETTERS = "hd_dead_letters";
  private static final AtomicLong IDS = new AtomicLong(1);
  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

  private SessionFactory emf;
  private OutboxTable outbox;
  private final SdkTracerProvider tracing = SdkTracerProvider.builder().build();

  @BeforeAll
  void start() {
    DATABASE.assumeReachable();
    OutboxTable.drop(DATABASE.dataSource(), TABLE, DEAD_LETTERS);
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(TABLE)
            .deadLetterTable(DEAD_LETTERS)
            .createSchema(true)
            .headerProvider(
                (event, type, id) -> Map.of("correlation-id", "corr-" + id, "source", "provider"))
            .build();
    emf = Emfs.create(DATABASE.dataSource(), options);
    outbox = new OutboxTable(DATABASE.dataSource(), TABLE);
  }

  @AfterAll
  void close() {
    if (emf != null) {
      emf.close();
    }
    tracing.close();
  }

  @BeforeEach
  void empty() {
    outbox.clear();
  }

  @Test
  void traceContextOfTheSpanActiveAtCommitIsStoredInTheRow() throws Exception {
    long id = IDS.getAndIncrement();
    Span span = tracing.get("test").spanBuilder("place order").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    } finally {
      span.end();
    }

    Map<String, String> headers = headersOfOnlyRow();
    String expected =
        "00-"
            + span.getSpanContext().getTraceId()
            + "-"
            + span.getSpanContext().getSpanId()
            + "-01";
    assertThat(headers).containsEntry("traceparent", expected);
  }

  @Test
  void withoutAnActiveSpanNoTraceContextIsStored() throws Exception {
    emf.inTransaction(
        session -> session.persist(PurchaseOrder.place(IDS.getAndIncrement(), BigDecimal.ONE)));

    assertThat(headersOfOnlyRow()).doesNotContainKey("traceparent");
  }

  @Test
  void headerProvidersAddHeadersAndTheEventsOwnHeadersWin() throws Exception {
    long id = IDS.getAndIncrement();
    emf.inTransaction(
        session -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
          order.clearDomainEvents();
          order.cancel("changed my mind"); // OrderCancelled carries correlation-id c-<id>
          session.persist(order);
        });

    Map<String, String> headers = headersOfOnlyRow();
    assertThat(headers).containsEntry("source", "provider");
    assertThat(headers).containsEntry("correlation-id", "c-" + id);
    assertThat(headers).containsEntry("tenant", "acme");
  }

  private Map<String, String> headersOfOnlyRow() throws Exception {
    List<OutboxTable.Row> rows = outbox.rows();
    assertThat(rows).hasSize(1);
    return new HashMap<>(
        new ObjectMapper()
            .readValue(rows.get(0).headers(), new TypeReference<Map<String, String>>() {}));
  }
}
