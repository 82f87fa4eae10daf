package dev.outbox;

import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A message as a consumer received it, read from the broker's headers ({@link WireHeaders}): what
 * an inbox needs to apply it once and in order. Each broker adapter has a small binding that makes
 * one from its client's received type; {@link #of(Map, byte[], String)} makes one from any.
 *
 * <p>A message from this outbox carries its aggregate, {@linkplain #seq() seq}, {@linkplain
 * #epoch() epoch} and {@linkplain #prevSeq() previous seq}; a message from another producer may
 * carry none of them ({@link #hasSeq()} is then {@code false}) and is known by its id alone.
 *
 * <p>Immutable; the payload is copied in and out.
 */
public final class IncomingMessage {

  private final String id;
  private final String eventType;
  private final String aggregateType;
  private final String aggregateId;
  private final long epoch;
  private final long seq;
  private final long prevSeq;
  private final Map<String, String> headers;
  private final byte[] payload;

  private IncomingMessage(Map<String, String> headers, byte[] payload, String brokerMessageId) {
    this.headers = Collections.unmodifiableMap(headers);
    this.payload = payload == null ? new byte[0] : payload.clone();
    this.id = firstNonBlank(header(WireHeaders.MESSAGE_ID), brokerMessageId);
    if (id == null) {
      throw malformed(
          "has no id: neither the "
              + WireHeaders.MESSAGE_ID
              + " header nor the broker's message id is set");
    }
    this.eventType = header(WireHeaders.EVENT_TYPE);
    this.aggregateType = header(WireHeaders.AGGREGATE_TYPE);
    this.aggregateId = header(WireHeaders.AGGREGATE_ID);
    String seqText = header(WireHeaders.SEQ);
    if (seqText == null) {
      this.seq = 0;
      this.epoch = 0;
      this.prevSeq = 0;
      return;
    }
    if (aggregateType == null || aggregateId == null) {
      throw malformed(
          "has the header "
              + WireHeaders.SEQ
              + " but not both of "
              + WireHeaders.AGGREGATE_TYPE
              + " and "
              + WireHeaders.AGGREGATE_ID
              + ", whose stream it numbers");
    }
    this.seq = number(WireHeaders.SEQ, seqText, 1);
    String epochText = header(WireHeaders.EPOCH);
    this.epoch = epochText == null ? 0 : number(WireHeaders.EPOCH, epochText, 0);
    String prevText = header(WireHeaders.PREV_SEQ);
    this.prevSeq = prevText == null ? seq - 1 : number(WireHeaders.PREV_SEQ, prevText, 0);
    if (prevSeq >= seq) {
      throw malformed(
          "has "
              + WireHeaders.PREV_SEQ
              + " "
              + prevSeq
              + ", which is not below its "
              + WireHeaders.SEQ
              + " "
              + seq);
    }
  }

  /**
   * Reads a received message from its headers.
   *
   * @param headers the message's headers or application properties as text; names are matched
   *     ignoring case
   * @param payload the body, {@code null} for none
   * @param brokerMessageId the broker's own message id, used when the {@value
   *     WireHeaders#MESSAGE_ID} header is missing (a message of another producer); may be {@code
   *     null}
   * @return the message
   * @throws IllegalArgumentException when the message has no id, or its outbox headers are
   *     malformed (a seq that is not a positive number, a seq without its aggregate, a previous seq
   *     not below the seq): the message names the header, its value and the message id
   */
  public static IncomingMessage of(
      Map<String, String> headers, byte[] payload, String brokerMessageId) {
    Objects.requireNonNull(headers, "headers");
    Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach(
        (name, value) -> {
          if (name != null && value != null) {
            byName.put(name, value);
          }
        });
    return new IncomingMessage(byName, payload, brokerMessageId);
  }

  /**
   * The message id: the {@value WireHeaders#MESSAGE_ID} header, else the broker's message id.
   *
   * @return never {@code null}
   */
  public String id() {
    return id;
  }

  /**
   * The logical event type, or {@code null} when the message does not say.
   *
   * @return the {@value WireHeaders#EVENT_TYPE} header
   */
  public String eventType() {
    return eventType;
  }

  /**
   * The type of the aggregate that raised the event, or {@code null}.
   *
   * @return the {@value WireHeaders#AGGREGATE_TYPE} header
   */
  public String aggregateType() {
    return aggregateType;
  }

  /**
   * The id of the aggregate that raised the event, or {@code null}.
   *
   * @return the {@value WireHeaders#AGGREGATE_ID} header
   */
  public String aggregateId() {
    return aggregateId;
  }

  /**
   * Whether the message carries its place in its aggregate's stream; {@code false} for a message of
   * another producer, which an inbox can only de-duplicate by id.
   *
   * @return whether {@value WireHeaders#SEQ} is set
   */
  public boolean hasSeq() {
    return seq > 0;
  }

  /**
   * The message's place in its aggregate's stream, 1 or more; 0 when {@link #hasSeq()} is false.
   *
   * @return the {@value WireHeaders#SEQ} header
   */
  public long seq() {
    return seq;
  }

  /**
   * The epoch of the aggregate's stream: (epoch, seq) only grows per aggregate. 0 when the message
   * does not say (a producer older than the epoch).
   *
   * @return the {@value WireHeaders#EPOCH} header
   */
  public long epoch() {
    return epoch;
  }

  /**
   * The seq of the message published before this one in the same stream, 0 if none; {@code seq - 1}
   * when the message does not say.
   *
   * @return the {@value WireHeaders#PREV_SEQ} header
   */
  public long prevSeq() {
    return prevSeq;
  }

  /**
   * Every header the message arrived with.
   *
   * @return an unmodifiable map whose look-ups ignore the case of names
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * One header, its name matched ignoring case.
   *
   * @param name the header's name
   * @return its value, or {@code null}
   */
  public String header(String name) {
    String value = headers.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  /**
   * The body.
   *
   * @return a copy of the bytes
   */
  public byte[] payload() {
    return payload.clone();
  }

  /**
   * The body as UTF-8 text, which is how every adapter sends the outbox's payloads.
   *
   * @return the text
   */
  public String payloadText() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "IncomingMessage[id="
        + id
        + (hasSeq()
            ? ", aggregate=" + aggregateType + '/' + aggregateId + ", seq=" + seq
            : ", no seq")
        + (hasSeq() && prevSeq != seq - 1 ? " (prev " + prevSeq + ")" : "")
        + (epoch == 0 ? "" : ", epoch=" + epoch)
        + (eventType == null ? "" : ", eventType=" + eventType)
        + ']';
  }

  private long number(String name, String text, long min) {
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      value = Long.MIN_VALUE;
    }
    if (value < min) {
      throw malformed(
          "has the header "
              + name
              + " = '"
              + text
              + "', which is not a whole number of "
              + min
              + " or more");
    }
    return value;
  }

  private IllegalArgumentException malformed(String what) {
    return new IllegalArgumentException(
        "Incoming message "
            + (id == null ? "" : id + " ")
            + what
            + "; headers: "
            + headers.keySet().stream()
                .map(name -> name.toLowerCase(Locale.ROOT))
                .sorted()
                .toList());
  }

  private static String firstNonBlank(String first, String second) {
    if (first != null) {
      return first;
    }
    return second == null || second.isBlank() ? null : second.strip();
  }
}
