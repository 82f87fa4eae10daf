package dev.outbox.hibernate.testing.e2e;

import dev.outbox.AggregateRoot;
import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The aggregate of the end-to-end tests: a counter that raises one {@link Stepped} event per step,
 * numbered from 0, so that a consumer can check the order of one aggregate's events.
 */
@Entity
@Table(name = "outbox_e2e_aggregates")
public class E2eAggregate extends AggregateRoot {

  /** The aggregate type unless the writer is given another. */
  public static final String DEFAULT_TYPE = "e2e-aggregate";

  @Id
  @Column(length = 100)
  private String id;

  @Column(name = "aggregate_type", nullable = false, length = 100)
  private String type;

  @Column(nullable = false)
  private long steps;

  /** For Hibernate. */
  protected E2eAggregate() {}

  /**
   * A new aggregate with no steps yet.
   *
   * @param id its id, also the aggregate id on the wire
   * @param type its aggregate type on the wire
   */
  public E2eAggregate(String id, String type) {
    this.id = id;
    this.type = type;
  }

  /** Counts one step and raises its event, numbered from 0. */
  public void step() {
    registerEvent(new Stepped(id, steps++));
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
   * How many steps were taken.
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
   * The only event: one step of an aggregate.
   *
   * @param aggregateId the aggregate
   * @param sequence the step's number within the aggregate, from 0
   */
  @EventType(Stepped.TYPE)
  public record Stepped(String aggregateId, long sequence) implements DomainEvent {

    /** The event type on the wire. */
    public static final String TYPE = "e2e.stepped";

    private static final Pattern AGGREGATE =
        Pattern.compile("\"aggregateId\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern SEQUENCE = Pattern.compile("\"sequence\"\\s*:\\s*(\\d+)");

    /**
     * Reads the event back from a received body.
     *
     * @param body the JSON payload as received
     * @return the event
     * @throws IllegalArgumentException when the body is not a {@code Stepped} event
     */
    public static Stepped parse(byte[] body) {
      String json = new String(body, StandardCharsets.UTF_8);
      Matcher aggregate = AGGREGATE.matcher(json);
      Matcher sequence = SEQUENCE.matcher(json);
      if (!aggregate.find() || !sequence.find()) {
        throw new IllegalArgumentException("Not a " + TYPE + " event: " + json);
      }
      return new Stepped(aggregate.group(1), Long.parseLong(sequence.group(1)));
    }
  }
}
