package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Opens an OpenTelemetry PRODUCER span for every message it publishes, named and attributed by the
 * messaging conventions ({@code publish <destination>}; {@code messaging.system}, {@code
 * messaging.destination.name}, {@code messaging.message.id}, {@code messaging.operation.name}
 * {@code publish}, {@code messaging.operation.type} {@code send}), and sends the message with the
 * span's {@code traceparent} in place of the one stored at write time.
 *
 * <p>The span's parent is the context stored at write time: one message comes from one write, so
 * the publish is a child of the business operation that wrote it, in the same trace, and the
 * consumer's span continues from the publish. (A link would split every delivery into a trace of
 * its own; links are for spans with many causes, such as a batch receive.) The span ends when the
 * broker's outcome is final: at once for an acknowledgement or a refusal, later for a send whose
 * outcome was still open when the publish timed out. When the tracer records nothing (no SDK), the
 * message keeps its stored context. Loaded only with the OpenTelemetry API on the classpath; see
 * {@link TraceContext}.
 */
final class PublishSpans implements EventPublisher {

  private static final String SCOPE = "dev.outbox";
  private static final String TRACEPARENT = "traceparent";
  private static final String TRACESTATE = "tracestate";
  private static final TextMapGetter<Map<String, String>> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private final EventPublisher delegate;
  private final Supplier<OpenTelemetry> openTelemetry;
  private volatile Tracer tracer;

  /**
   * Spans around a publisher.
   *
   * @param delegate the adapter's publisher
   * @param openTelemetry the instance to trace with, or {@code null} for {@code
   *     GlobalOpenTelemetry}, read at the first publish
   */
  PublishSpans(EventPublisher delegate, Object openTelemetry) {
    this.delegate = delegate;
    this.openTelemetry =
        openTelemetry == null ? GlobalOpenTelemetry::get : () -> (OpenTelemetry) openTelemetry;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    Map<UUID, Span> spans = new LinkedHashMap<>();
    List<OutboxMessage> traced = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      Span span = start(message);
      spans.put(message.id(), span);
      traced.add(carrying(message, span));
    }
    List<PublishResult> results;
    try {
      results = delegate.publish(traced, timeout);
    } catch (RuntimeException | Error e) {
      spans
          .values()
          .forEach(
              span -> {
                span.recordException(e);
                span.setAttribute("error.type", e.getClass().getName());
                span.setStatus(StatusCode.ERROR, e.getMessage());
                span.end();
              });
      throw e;
    }
    // By id, as the engine reads them: a publisher may answer in another order, or not for each.
    if (results != null) {
      for (PublishResult result : results) {
        Span span = result == null ? null : spans.remove(result.messageId());
        if (span != null) {
          finish(span, result);
        }
      }
    }
    spans
        .values()
        .forEach(
            span -> {
              span.setStatus(StatusCode.ERROR, "the publisher returned no result for the message");
              span.end();
            });
    return results;
  }

  private Span start(OutboxMessage message) {
    Context stored =
        W3CTraceContextPropagator.getInstance().extract(Context.root(), message.headers(), HEADERS);
    return tracer()
        .spanBuilder("publish")
        .setParent(stored)
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute("messaging.system", delegate.messagingSystem())
        .setAttribute("messaging.operation.name", "publish")
        .setAttribute("messaging.operation.type", "send")
        .setAttribute("messaging.operation", "publish")
        .setAttribute("messaging.message.id", message.id().toString())
        .setAttribute("outbox.event.type", message.eventType())
        .setAttribute("outbox.aggregate.type", message.aggregateType())
        .setAttribute("outbox.attempt", message.attempts() + 1L)
        .startSpan();
  }

  /** The message with the span's trace context, or as it was when the span records nothing. */
  private static OutboxMessage carrying(OutboxMessage message, Span span) {
    if (!span.getSpanContext().isValid()) {
      return message;
    }
    Map<String, String> headers = new HashMap<>(message.headers());
    headers.remove(TRACEPARENT);
    headers.remove(TRACESTATE);
    W3CTraceContextPropagator.getInstance()
        .inject(Context.root().with(span), headers, (into, key, value) -> into.put(key, value));
    return message.withHeaders(headers);
  }

  private static void finish(Span span, PublishResult result) {
    if (result.isUncertain()) {
      span.addEvent("publish timed out; waiting for the broker client's final outcome");
      result
          .finalOutcome()
          .whenComplete(
              (outcome, failure) -> {
                if (failure != null) {
                  span.recordException(failure);
                  span.setStatus(StatusCode.ERROR, failure.getMessage());
                  span.end();
                } else {
                  finish(span, outcome);
                }
              });
      return;
    }
    String destination =
        result.destination() != null
            ? result.destination()
            : result.failure() == null ? null : result.failure().destination();
    if (destination != null) {
      span.setAttribute("messaging.destination.name", destination);
      span.updateName("publish " + destination);
    }
    PublishException failure = result.failure();
    if (failure != null) {
      Throwable cause = failure.getCause() == null ? failure : failure.getCause();
      span.setAttribute("error.type", cause.getClass().getName());
      span.setAttribute("outbox.retryable", failure.isRetryable());
      span.setStatus(StatusCode.ERROR, failure.getMessage());
    }
    span.end();
  }

  private Tracer tracer() {
    Tracer current = tracer;
    if (current == null) {
      current = openTelemetry.get().getTracer(SCOPE);
      tracer = current;
    }
    return current;
  }

  @Override
  public String messagingSystem() {
    return delegate.messagingSystem();
  }

  @Override
  public void recreateClient() {
    delegate.recreateClient();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "PublishSpans[" + delegate + "]";
  }
}
