package dev.outbox.spi;

import dev.outbox.OutboxMessage;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The header (or application property) names every broker adapter uses for what the broker has no
 * native slot for, so that consumers read the same names whichever broker carries the event.
 *
 * <p>An adapter puts {@link #of(OutboxMessage)} on the wire. Where the broker has a native slot
 * (RabbitMQ {@code messageId} and {@code contentType}, Service Bus {@code messageId}, NATS {@code
 * Nats-Msg-Id}, ...), it fills that slot as well; sending the header too is harmless.
 *
 * <p><b>Reserved names.</b> The standard names are reserved: a row header whose name equals one of
 * them, ignoring case, is left out of {@link #of(OutboxMessage)}, so that application metadata can
 * never forge the message id, the routing fields or the content type consumers rely on.
 */
public final class WireHeaders {

  /** The outbox message id (a UUID string): the consumers' idempotency key. */
  public static final String MESSAGE_ID = "outbox-message-id";

  /** The logical event type. */
  public static final String EVENT_TYPE = "outbox-event-type";

  /** The type of the aggregate that raised the event. */
  public static final String AGGREGATE_TYPE = "outbox-aggregate-type";

  /** The id of the aggregate that raised the event: the ordering key. */
  public static final String AGGREGATE_ID = "outbox-aggregate-id";

  /**
   * The message's place in its aggregate's stream ({@link OutboxMessage#seq()}: 1, 2, 3, ... in
   * commit order), in decimal: what a consumer orders and de-duplicates one aggregate's messages
   * by.
   */
  public static final String SEQ = "outbox-seq";

  /**
   * The epoch of the message's aggregate stream ({@link OutboxMessage#epoch()}), in decimal: a
   * stream that cleanup ended and a later write began again at seq 1 has a larger epoch, so that
   * (epoch, seq) only grows per aggregate.
   */
  public static final String EPOCH = "outbox-epoch";

  /**
   * The seq of the message of the same aggregate and epoch published before this one ({@link
   * OutboxMessage#prevSeq()}), in decimal, 0 if none: {@code seq - 1} unless messages in between
   * were dead-lettered and will never come, which a consumer tells from a message still to come by
   * it.
   */
  public static final String PREV_SEQ = "outbox-prev-seq";

  /** When the event happened, ISO-8601 in UTC ({@code 2025-01-31T10:15:30.123456Z}). */
  public static final String OCCURRED_AT = "outbox-occurred-at";

  /** The payload's media type, usually {@code application/json}. */
  public static final String CONTENT_TYPE = "content-type";

  /** Every standard name, lower case. */
  public static final Set<String> STANDARD =
      Set.of(
          MESSAGE_ID,
          EVENT_TYPE,
          AGGREGATE_TYPE,
          AGGREGATE_ID,
          SEQ,
          EPOCH,
          PREV_SEQ,
          OCCURRED_AT,
          CONTENT_TYPE);

  private WireHeaders() {}

  /**
   * The headers to send with a message: the standard ones first, then every row header in name
   * order, leaving out row headers with a reserved name.
   *
   * @param message the outbox message
   * @return an unmodifiable, ordered map of header names to values
   */
  public static Map<String, String> of(OutboxMessage message) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(MESSAGE_ID, message.id().toString());
    headers.put(EVENT_TYPE, message.eventType());
    headers.put(AGGREGATE_TYPE, message.aggregateType());
    headers.put(AGGREGATE_ID, message.aggregateId());
    headers.put(SEQ, Long.toString(message.seq()));
    headers.put(EPOCH, Long.toString(message.epoch()));
    headers.put(PREV_SEQ, Long.toString(message.prevSeq()));
    headers.put(OCCURRED_AT, DateTimeFormatter.ISO_INSTANT.format(message.occurredAt()));
    headers.put(CONTENT_TYPE, message.contentType());
    new TreeMap<>(message.headers())
        .forEach(
            (name, value) -> {
              if (!isReserved(name)) {
                headers.put(name, value);
              }
            });
    return Collections.unmodifiableMap(headers);
  }

  /**
   * Whether a name is one of the standard names, ignoring case.
   *
   * @param name a header name
   * @return {@code true} when a row header of that name is left out of {@link #of(OutboxMessage)}
   */
  public static boolean isReserved(String name) {
    return name != null && STANDARD.contains(name.toLowerCase(Locale.ROOT));
  }
}
