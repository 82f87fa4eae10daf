package dev.outbox.testkit;

import dev.outbox.OutboxMessage;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Builds realistic {@link OutboxMessage}s for the contract: time-ordered UUIDv7 ids, increasing
 * positions, JSON payloads, correlation and trace headers, and aggregate types unique per test so
 * that every test works on fresh destinations.
 */
public final class TestMessages {

  /** The event type of the messages built here. */
  public static final String EVENT_TYPE = "order.placed";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final AtomicLong POSITIONS = new AtomicLong();
  private static long lastMillis;
  private static int counter;

  private TestMessages() {}

  /**
   * A fresh aggregate type: the purpose and eight random hex digits, {@code [a-z0-9-]} only, so
   * that it is a valid Kafka topic, NATS subject token, queue and entity name.
   *
   * @param purpose a short lower-case word naming the test ("headers")
   * @return for example {@code headers-3fa8c1d2}
   */
  public static String aggregateType(String purpose) {
    byte[] suffix = new byte[4];
    RANDOM.nextBytes(suffix);
    return purpose + "-" + HexFormat.of().formatHex(suffix);
  }

  /**
   * A new time-ordered id in the UUIDv7 layout: 48 bits of Unix milliseconds, a counter that keeps
   * ids of one millisecond increasing, random bits.
   *
   * @return the id
   */
  public static synchronized UUID nextId() {
    long now = System.currentTimeMillis();
    if (now > lastMillis) {
      lastMillis = now;
      counter = RANDOM.nextInt(1 << 10);
    } else if (++counter > 0xFFF) {
      lastMillis++;
      counter = 0;
    }
    long high = (lastMillis << 16) | 0x7000L | counter;
    long low = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(high, low);
  }

  /**
   * A message of an order placed, with a small JSON payload and correlation, trace and tenant
   * headers.
   *
   * @param aggregateType the aggregate type: selects the destination
   * @param aggregateId the aggregate id: the key
   * @return the message
   */
  public static OutboxMessage message(String aggregateType, String aggregateId) {
    return message(aggregateType, aggregateId, payload(aggregateId));
  }

  /**
   * The same with a payload of the caller's.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param payload the JSON payload
   * @return the message
   */
  public static OutboxMessage message(String aggregateType, String aggregateId, String payload) {
    return message(aggregateType, aggregateId, payload, standardHeaders());
  }

  /**
   * The same with headers of the caller's.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param payload the JSON payload
   * @param headers the row headers
   * @return the message
   */
  public static OutboxMessage message(
      String aggregateType, String aggregateId, String payload, Map<String, String> headers) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    return new OutboxMessage(
        nextId(),
        POSITIONS.incrementAndGet(),
        aggregateType,
        aggregateId,
        EVENT_TYPE,
        OutboxMessage.JSON,
        payload,
        headers,
        now.minusMillis(37),
        now,
        0);
  }

  /**
   * A batch as the processor hands it over: {@code aggregates} aggregates of one type, {@code
   * perAggregate} messages each, interleaved (a1, a2, ..., a1, a2, ...), in position order.
   *
   * @param aggregateType the aggregate type of every message
   * @param aggregates how many aggregates
   * @param perAggregate messages per aggregate
   * @return the batch
   */
  public static List<OutboxMessage> batch(String aggregateType, int aggregates, int perAggregate) {
    List<OutboxMessage> batch = new ArrayList<>(aggregates * perAggregate);
    for (int round = 0; round < perAggregate; round++) {
      for (int a = 0; a < aggregates; a++) {
        batch.add(message(aggregateType, aggregateId(a)));
      }
    }
    return batch;
  }

  /**
   * The id of the n-th aggregate of a batch.
   *
   * @param n from 0
   * @return for example {@code order-1003}
   */
  public static String aggregateId(int n) {
    return "order-" + (1000 + n);
  }

  /**
   * A JSON document of about {@code size} bytes in UTF-8, with non-ASCII text.
   *
   * @param size the approximate size in bytes
   * @return the JSON
   */
  public static String largeJsonPayload(int size) {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; lines.length() < size - 120; i++) {
      lines.append(i == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(i);
      lines.append("\",\"name\":\"Crème brûlée № ").append(i).append("\",\"qty\":").append(i % 7);
      lines.append('}');
    }
    return "{\"orderId\":\"order-1000\",\"customer\":\"Zoë Ångström\",\"lines\":["
        + lines
        + "],\"note\":\"\\\"quoted\\\" \\\\ 東京 🚀\"}";
  }

  private static String payload(String aggregateId) {
    return "{\"orderId\":\""
        + aggregateId
        + "\",\"total\":\"129.90\",\"currency\":\"EUR\",\"customer\":\"Zoë\"}";
  }

  private static Map<String, String> standardHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("correlation-id", UUID.randomUUID().toString());
    headers.put("traceparent", traceparent());
    headers.put("tenant", "acme");
    return headers;
  }

  private static String traceparent() {
    byte[] trace = new byte[16];
    byte[] span = new byte[8];
    RANDOM.nextBytes(trace);
    RANDOM.nextBytes(span);
    HexFormat hex = HexFormat.of();
    return "00-" + hex.formatHex(trace) + "-" + hex.formatHex(span) + "-01";
  }
}
