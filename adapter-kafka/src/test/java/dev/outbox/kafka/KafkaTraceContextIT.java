package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.kafka.testing.TestConsumer;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A span active when the business transaction commits continues on the consumer's side: its W3C
 * {@code traceparent} is stored with the event and arrives as a Kafka header; with an SDK, through
 * the publish span the outbox opens under it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class KafkaTraceContextIT {

  private EmbeddedKafka kafka;
  private final SdkTracerProvider tracing = SdkTracerProvider.builder().build();

  @BeforeAll
  void startServers() {
    RequiredServer.assumePostgres();
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  void stop() {
    if (kafka != null) {
      kafka.close();
    }
    tracing.close();
  }

  @Test
  void traceparentOfTheSpanActiveAtCommitArrivesAsAKafkaHeader() {
    String type = TestMessages.aggregateType("trace");
    kafka.createTopic(type, 1);
    try (E2eDatabase db = E2eDatabase.start("trace");
        Outbox outbox =
            db.outbox(
                new KafkaEventPublisher(
                    KafkaPublisherOptions.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .build()));
        TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      outbox.start();
      Span span = tracing.get("orders").spanBuilder("place order").startSpan();
      try (Scope ignored = span.makeCurrent()) {
        db.emf()
            .inTransaction(
                session -> {
                  E2eAggregate aggregate = new E2eAggregate("trace-1", type);
                  aggregate.step();
                  session.persist(aggregate);
                });
      } finally {
        span.end();
      }

      List<ConsumerRecord<String, byte[]>> records = consumer.poll(1, Duration.ofSeconds(60));

      assertThat(records).hasSize(1);
      assertThat(TestConsumer.headers(records.get(0)))
          .containsEntry(
              "traceparent",
              "00-"
                  + span.getSpanContext().getTraceId()
                  + "-"
                  + span.getSpanContext().getSpanId()
                  + "-01");
    }
  }

  @Test
  void withAnSdkThePublishSpanIsAChildOfTheBusinessSpanAndTheRecordNamesIt() {
    String type = TestMessages.aggregateType("publish-span");
    kafka.createTopic(type, 1);
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();
    GlobalOpenTelemetry.resetForTest();
    GlobalOpenTelemetry.set(sdk);
    try (E2eDatabase db = E2eDatabase.start("publish_span");
        Outbox outbox =
            db.outbox(
                new KafkaEventPublisher(
                    KafkaPublisherOptions.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .build()));
        TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      outbox.start();
      Span business = sdk.getTracer("orders").spanBuilder("place order").startSpan();
      try (Scope ignored = business.makeCurrent()) {
        db.emf()
            .inTransaction(
                session -> {
                  E2eAggregate aggregate = new E2eAggregate("publish_span-1", type);
                  aggregate.step();
                  session.persist(aggregate);
                });
      } finally {
        business.end();
      }

      List<ConsumerRecord<String, byte[]>> records = consumer.poll(1, Duration.ofSeconds(60));

      assertThat(records).hasSize(1);
      Map<String, String> headers = TestConsumer.headers(records.get(0));
      // The span ends when the outbox reads the producer's acknowledgement, which may come after
      // the consumer sees the record.
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
      assertThat(publish.getName()).isEqualTo("publish " + type);
      assertThat(publish.getTraceId()).isEqualTo(business.getSpanContext().getTraceId());
      assertThat(publish.getParentSpanId()).isEqualTo(business.getSpanContext().getSpanId());
      assertThat(publish.getAttributes().asMap())
          .containsEntry(AttributeKey.stringKey("messaging.system"), "kafka")
          .containsEntry(AttributeKey.stringKey("messaging.destination.name"), type)
          .containsEntry(AttributeKey.stringKey("messaging.operation.name"), "publish")
          .containsEntry(
              AttributeKey.stringKey("messaging.message.id"), headers.get("outbox-message-id"));
      assertThat(headers)
          .containsEntry(
              "traceparent", "00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-01");
    } finally {
      GlobalOpenTelemetry.resetForTest();
      sdk.close();
    }
  }
}
