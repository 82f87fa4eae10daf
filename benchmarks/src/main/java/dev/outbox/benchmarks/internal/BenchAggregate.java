package dev.outbox.benchmarks.internal;

import dev.outbox.AggregateRoot;
import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * The benchmarks' aggregate: a counter whose steps each raise one {@link Happened} event with a
 * payload of exactly {@value #PAYLOAD_BYTES} bytes of JSON.
 */
@Entity
@Table(name = "bench_aggregates")
public class BenchAggregate extends AggregateRoot {

  /** The size of every event's JSON payload. */
  public static final int PAYLOAD_BYTES = 1024;

  @Id
  @Column(length = 100)
  private String id;

  @Column(name = "aggregate_type", nullable = false, length = 100)
  private String type;

  @Column(nullable = false)
  private long steps;

  @Column(nullable = false)
  private long touches;

  /** For Hibernate. */
  protected BenchAggregate() {}

  /**
   * A new aggregate.
   *
   * @param id its id
   * @param type its aggregate type on the wire
   */
  public BenchAggregate(String id, String type) {
    this.id = id;
    this.type = type;
  }

  /**
   * Changes the aggregate and raises {@code events} events.
   *
   * @param events how many events, 0 for a change without events
   */
  public void touch(int events) {
    touches++;
    for (int i = 0; i < events; i++) {
      registerEvent(Happened.of(id, steps++));
    }
  }

  /**
   * The id.
   *
   * @return the id
   */
  public String getId() {
    return id;
  }

  /**
   * How many events it raised.
   *
   * @return the count
   */
  public long getSteps() {
    return steps;
  }

  @Override
  public String aggregateType() {
    return type;
  }

  /**
   * The event: one step of an aggregate, padded to {@value #PAYLOAD_BYTES} bytes of JSON.
   *
   * @param aggregateId the aggregate
   * @param sequence the step's number within the aggregate, from 0
   * @param padding filler up to the payload size
   */
  @EventType(Happened.TYPE)
  public record Happened(String aggregateId, long sequence, String padding) implements DomainEvent {

    /** The event type on the wire. */
    public static final String TYPE = "bench.happened";

    private static final String SEQUENCE = "\"sequence\":";

    /**
     * An event whose JSON is exactly {@value #PAYLOAD_BYTES} bytes (ASCII ids).
     *
     * @param aggregateId the aggregate
     * @param sequence the step
     * @return the event
     */
    public static Happened of(String aggregateId, long sequence) {
      int frame =
          "{\"aggregateId\":\"\",\"sequence\":,\"padding\":\"\"}".length()
              + aggregateId.length()
              + Long.toString(sequence).length();
      return new Happened(aggregateId, sequence, "x".repeat(Math.max(0, PAYLOAD_BYTES - frame)));
    }

    /**
     * The key {@code aggregateId#sequence} of a payload written by this event, without parsing the
     * whole JSON.
     *
     * @param aggregateId the message's aggregate id
     * @param payload the JSON payload
     * @return the key, or {@code null} when the payload has no sequence
     */
    public static String key(String aggregateId, String payload) {
      int at = payload.indexOf(SEQUENCE);
      if (at < 0) {
        return null;
      }
      int from = at + SEQUENCE.length();
      int to = from;
      while (to < payload.length() && Character.isDigit(payload.charAt(to))) {
        to++;
      }
      return aggregateId + '#' + payload.substring(from, to);
    }
  }
}
