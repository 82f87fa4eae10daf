package dev.outbox.jdbc.internal;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.spi.EventSerializer;
import dev.outbox.spi.HeaderProvider;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Turns events into outbox rows: checks the names, serializes the payload, collects the headers.
 * Every check runs before anything is written, so that bad input writes nothing.
 */
public final class EventRows {

  /** The longest aggregate type, aggregate id and event type the tables hold. */
  public static final int MAX_NAME_LENGTH = 255;

  private final EventSerializer serializer;
  private final RowHeaders headers;
  private final Clock clock;

  /**
   * Rows made with a serializer and header providers.
   *
   * @param serializer the payload's serializer
   * @param providers add headers to every row, before the event's own
   * @param clock the clock of {@code created_at} and of a missing {@code occurred_at}
   */
  public EventRows(EventSerializer serializer, List<HeaderProvider> providers, Clock clock) {
    this.serializer = serializer;
    this.headers = new RowHeaders(providers);
    this.clock = clock;
  }

  /**
   * The row of one event.
   *
   * @param consequence what the failure means for the caller, ending the message of a failure
   * @throws OutboxException naming what is wrong with the names or the event
   */
  OutboxRow row(String aggregateType, String aggregateId, DomainEvent event, String consequence) {
    if (event == null) {
      throw new OutboxException(
          "The event for aggregate "
              + aggregateType
              + '/'
              + aggregateId
              + " is null. "
              + consequence);
    }
    checkName("The aggregate type", aggregateType, event, consequence);
    checkName("The aggregate id", aggregateId, event, consequence);
    String eventType = event.eventType();
    checkName("The event type", eventType, event, consequence);
    Map<String, String> eventHeaders = headers.of(event, aggregateType, aggregateId);
    Instant now = clock.instant();
    Instant occurredAt = event.occurredAt();
    return new OutboxRow(
        UuidV7.next(),
        aggregateType,
        aggregateId,
        0,
        eventType,
        serializer.contentType(),
        serialize(event, aggregateType, aggregateId, consequence),
        eventHeaders,
        headers.json(eventHeaders),
        occurredAt != null ? occurredAt : now,
        now,
        0);
  }

  /**
   * Checks a name the tables hold.
   *
   * @param what the name's description at the start of the message
   * @param value the name
   * @param event the event it belongs to, named in the message
   * @param consequence the end of the message
   * @throws OutboxException when it is null, blank or too long
   */
  static void checkName(String what, String value, DomainEvent event, String consequence) {
    if (value == null || value.isBlank() || value.length() > MAX_NAME_LENGTH) {
      throw new OutboxException(
          what
              + " of "
              + event.getClass().getName()
              + " must be non-blank and at most "
              + MAX_NAME_LENGTH
              + " characters, but was "
              + (value == null ? "null" : '"' + value + '"')
              + ". "
              + consequence);
    }
  }

  private String serialize(
      DomainEvent event, String aggregateType, String aggregateId, String consequence) {
    String payload;
    try {
      payload = serializer.serialize(event);
    } catch (RuntimeException e) {
      throw new OutboxException(
          "Cannot serialize event "
              + event.getClass().getName()
              + " of aggregate "
              + aggregateType
              + '/'
              + aggregateId
              + ": "
              + withoutFinalPeriod(e.getMessage() == null ? e.getClass().getName() : e.getMessage())
              + ". "
              + consequence
              + " Make the event serializable by "
              + serializer
              + '.',
          e);
    }
    if (payload == null) {
      throw new OutboxException(
          serializer
              + " returned null for event "
              + event.getClass().getName()
              + ". "
              + consequence);
    }
    return payload;
  }

  /**
   * A message without its final periods and the blanks around them, so that a sentence of ours can
   * follow it, or end it with one.
   *
   * @param message a message, such as an exception's
   * @return the message, stripped
   */
  public static String withoutFinalPeriod(String message) {
    String text = message.strip();
    while (text.endsWith(".")) {
      text = text.substring(0, text.length() - 1).stripTrailing();
    }
    return text;
  }
}
