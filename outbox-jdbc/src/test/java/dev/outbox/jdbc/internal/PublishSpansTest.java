package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxException;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every publish is a PRODUCER span under the context stored at write time, carried by the message,
 * ended when the broker's outcome is final.
 */
class PublishSpansTest {

  private static final String BUSINESS_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String BUSINESS_SPAN = "00f067aa0ba902b7";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final List<OutboxMessage> sent = new ArrayList<>();

  @AfterEach
  void close() {
    sdk.close();
  }

  private EventPublisher broker(Function<OutboxMessage, PublishResult> outcome) {
    return new EventPublisher() {
      @Override
      public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
        sent.addAll(messages);
        return messages.stream().map(outcome).toList();
      }

      @Override
      public String messagingSystem() {
        return "kafka";
      }
    };
  }

  private EventPublisher traced(EventPublisher broker) {
    return TraceContext.detect(sdk).publisher(broker);
  }

  private static OutboxMessage message(Map<String, String> headers) {
    Instant now = Instant.now();
    return new OutboxMessage(
        UUID.randomUUID(),
        1,
        "Order",
        "42",
        "order.placed",
        OutboxMessage.JSON,
        "{}",
        headers,
        now,
        now,
        0);
  }

  private static Map<String, String> storedAtWrite() {
    return Map.of(
        "traceparent", "00-" + BUSINESS_TRACE + "-" + BUSINESS_SPAN + "-01", "tenant", "acme");
  }

  @Test
  void aPublishIsAProducerSpanUnderTheWritersSpanAndTheMessageCarriesIt() {
    OutboxMessage message = message(storedAtWrite());

    List<PublishResult> results =
        traced(broker(m -> PublishResult.published(m.id(), "orders")))
            .publish(List.of(message), Duration.ofSeconds(5));

    assertThat(results).singleElement().satisfies(r -> assertThat(r.isPublished()).isTrue());
    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(span.getName()).isEqualTo("publish orders");
    assertThat(span.getTraceId()).isEqualTo(BUSINESS_TRACE);
    assertThat(span.getParentSpanId()).isEqualTo(BUSINESS_SPAN);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.system"), "kafka")
        .containsEntry(AttributeKey.stringKey("messaging.destination.name"), "orders")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), message.id().toString())
        .containsEntry(AttributeKey.stringKey("messaging.operation.name"), "publish")
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "send")
        .containsEntry(AttributeKey.stringKey("outbox.event.type"), "order.placed");
    assertThat(sent.get(0).headers())
        .containsEntry("traceparent", "00-" + BUSINESS_TRACE + "-" + span.getSpanId() + "-01")
        .containsEntry("tenant", "acme");
    assertThat(sent.get(0).id()).isEqualTo(message.id());
  }

  @Test
  void aMessageWrittenOutsideAnySpanStartsATraceOfItsOwn() {
    traced(broker(m -> PublishResult.published(m.id(), "orders")))
        .publish(List.of(message(Map.of())), Duration.ofSeconds(5));

    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getParentSpanContext().isValid()).isFalse();
    assertThat(sent.get(0).headers().get("traceparent")).contains(span.getTraceId());
  }

  @Test
  void aRefusalEndsTheSpanWithAnError() {
    traced(
            broker(
                m ->
                    PublishResult.failed(
                        m.id(), PublishException.permanent(m.id(), "orders", "too large", null))))
        .publish(List.of(message(storedAtWrite())), Duration.ofSeconds(5));

    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getStatus().getDescription()).contains("too large");
    assertThat(span.getName()).isEqualTo("publish orders");
    assertThat(span.getAttributes().get(AttributeKey.booleanKey("outbox.retryable"))).isFalse();
  }

  @Test
  void anUncertainSendEndsItsSpanOnlyWithTheFinalOutcome() {
    CompletableFuture<PublishResult> late = new CompletableFuture<>();
    traced(broker(m -> PublishResult.uncertain(m.id(), "orders", Duration.ofSeconds(1), late)))
        .publish(List.of(message(storedAtWrite())), Duration.ofSeconds(1));

    assertThat(exporter.getFinishedSpanItems()).as("still open").isEmpty();
    late.complete(PublishResult.published(sent.get(0).id(), "orders"));

    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(span.getEvents())
        .extracting(e -> e.getName())
        .singleElement()
        .asString()
        .contains("timed out");
  }

  @Test
  void aPublisherThatThrowsEndsEverySpanWithTheError() {
    EventPublisher failing =
        new EventPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
            throw new IllegalStateException("client closed");
          }
        };

    assertThatThrownBy(
            () ->
                traced(failing)
                    .publish(
                        List.of(message(storedAtWrite()), message(Map.of())),
                        Duration.ofSeconds(1)))
        .hasMessage("client closed");
    assertThat(exporter.getFinishedSpanItems())
        .hasSize(2)
        .allSatisfy(s -> assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR));
  }

  @Test
  void withoutAnSdkTheMessageKeepsTheContextStoredAtWrite() {
    Map<String, String> stored = new HashMap<>(storedAtWrite());
    OutboxMessage message = message(stored);

    TraceContext.detect(OpenTelemetry.noop())
        .publisher(broker(m -> PublishResult.published(m.id(), "orders")))
        .publish(List.of(message), Duration.ofSeconds(1));

    assertThat(sent.get(0).headers()).isEqualTo(stored);
  }

  @Test
  void resultsInAnotherOrderOrMissingEndEachSpanWithItsOwnOutcome() {
    OutboxMessage first = message(storedAtWrite());
    OutboxMessage second = message(storedAtWrite());
    OutboxMessage third = message(storedAtWrite());
    EventPublisher reversedAndShort =
        new EventPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
            return List.of(
                PublishResult.failed(
                    messages.get(1).id(),
                    PublishException.retryable(messages.get(1).id(), "orders", "refused", null)),
                PublishResult.published(messages.get(0).id(), "orders"));
          }

          @Override
          public String messagingSystem() {
            return "kafka";
          }
        };

    List<PublishResult> results =
        traced(reversedAndShort).publish(List.of(first, second, third), Duration.ofSeconds(1));

    assertThat(results).hasSize(2);
    Map<String, StatusCode> statusById = new HashMap<>();
    exporter
        .getFinishedSpanItems()
        .forEach(
            span ->
                statusById.put(
                    span.getAttributes().get(AttributeKey.stringKey("messaging.message.id")),
                    span.getStatus().getStatusCode()));
    assertThat(statusById)
        .containsEntry(first.id().toString(), StatusCode.UNSET)
        .containsEntry(second.id().toString(), StatusCode.ERROR)
        .containsEntry(third.id().toString(), StatusCode.ERROR)
        .hasSize(3);
  }

  @Test
  void recreatingTheClientReachesTheAdapter() {
    AtomicInteger recreated = new AtomicInteger();
    EventPublisher broker =
        new EventPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
            return List.of();
          }

          @Override
          public void recreateClient() {
            recreated.incrementAndGet();
          }
        };

    traced(broker).recreateClient();

    assertThat(recreated).hasValue(1);
  }

  @Test
  void switchedOffOrMisconfigured() {
    EventPublisher broker = broker(m -> PublishResult.published(m.id()));

    assertThat(TraceContext.off().publisher(broker)).isSameAs(broker);
    assertThat(TraceContext.off().headerProvider()).isEmpty();
    assertThatThrownBy(() -> TraceContext.checkOpenTelemetry("otel"))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("openTelemetry must be an io.opentelemetry.api.OpenTelemetry")
        .hasMessageContaining("java.lang.String");
    EventPublisher global = TraceContext.detect(null).publisher(broker);
    assertThat(global).isNotSameAs(broker);
    assertThat(global.messagingSystem()).isEqualTo("kafka");
  }
}
