package dev.outbox;

import java.time.Instant;

/**
 * Which dead letters to list, count or purge, and which page. Every filter is optional; start from
 * {@link #all()} and narrow it:
 *
 * <pre>{@code
 * DeadLetterQuery.all().eventType("order.placed").since(yesterday).page(0, 50)
 * }</pre>
 *
 * @param eventType only this event type, or {@code null}
 * @param aggregateType only this aggregate type, or {@code null}
 * @param aggregateId only this aggregate id, or {@code null}
 * @param errorContains only those whose last error contains this text, ignoring case, or {@code
 *     null}
 * @param since only dead-lettered at or after this instant, or {@code null}
 * @param until only dead-lettered before this instant, or {@code null}
 * @param offset how many matching dead letters to skip, &ge; 0
 * @param limit the page size, between 1 and 10,000
 */
public record DeadLetterQuery(
    String eventType,
    String aggregateType,
    String aggregateId,
    String errorContains,
    Instant since,
    Instant until,
    int offset,
    int limit) {

  /** Default page size. */
  public static final int DEFAULT_LIMIT = 100;

  /** Checks the paging. */
  public DeadLetterQuery {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, but was " + offset);
    }
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000, but was " + limit);
    }
  }

  /**
   * Every dead letter, first page of {@value #DEFAULT_LIMIT}, oldest first.
   *
   * @return the query
   */
  public static DeadLetterQuery all() {
    return new DeadLetterQuery(null, null, null, null, null, null, 0, DEFAULT_LIMIT);
  }

  /**
   * Narrows to one event type.
   *
   * @param type the logical event type, or {@code null} for any
   * @return a new query
   */
  public DeadLetterQuery eventType(String type) {
    return new DeadLetterQuery(
        type, aggregateType, aggregateId, errorContains, since, until, offset, limit);
  }

  /**
   * Narrows to one aggregate.
   *
   * @param type the aggregate type, or {@code null} for any
   * @param id the aggregate id, or {@code null} for every aggregate of that type
   * @return a new query
   */
  public DeadLetterQuery aggregate(String type, String id) {
    return new DeadLetterQuery(eventType, type, id, errorContains, since, until, offset, limit);
  }

  /**
   * Narrows to dead letters whose last error contains a text, ignoring case.
   *
   * @param text what the error contains, e.g. {@code "timed out"}, or {@code null} for any
   * @return a new query
   */
  public DeadLetterQuery errorContains(String text) {
    return new DeadLetterQuery(
        eventType, aggregateType, aggregateId, text, since, until, offset, limit);
  }

  /**
   * Narrows to dead letters moved at or after an instant.
   *
   * @param from the inclusive lower bound, or {@code null} for none
   * @return a new query
   */
  public DeadLetterQuery since(Instant from) {
    return new DeadLetterQuery(
        eventType, aggregateType, aggregateId, errorContains, from, until, offset, limit);
  }

  /**
   * Narrows to dead letters moved before an instant.
   *
   * @param to the exclusive upper bound, or {@code null} for none
   * @return a new query
   */
  public DeadLetterQuery until(Instant to) {
    return new DeadLetterQuery(
        eventType, aggregateType, aggregateId, errorContains, since, to, offset, limit);
  }

  /**
   * Selects a page.
   *
   * @param pageOffset how many to skip
   * @param pageLimit the page size
   * @return a new query
   */
  public DeadLetterQuery page(int pageOffset, int pageLimit) {
    return new DeadLetterQuery(
        eventType, aggregateType, aggregateId, errorContains, since, until, pageOffset, pageLimit);
  }
}
