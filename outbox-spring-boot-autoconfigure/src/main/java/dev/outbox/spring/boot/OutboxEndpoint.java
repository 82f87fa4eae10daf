package dev.outbox.spring.boot;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.OutboxStore;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code outbox} Actuator endpoint.
 *
 * <ul>
 *   <li>{@code GET /actuator/outbox}: status (health snapshot, aggregates retrying and held, leases
 *       per instance);
 *   <li>{@code GET /actuator/outbox/dead-letters?eventType=&aggregateType=&aggregateId=&error=
 *       &since=&until=&offset=0&limit=50}: a page of dead letters and the total;
 *   <li>{@code GET /actuator/outbox/dead-letters/{id}}: one, with payload, headers and error;
 *   <li>{@code POST /actuator/outbox/dead-letters/replay} and {@code .../purge} with a JSON body of
 *       {@code ids} or the same filters (and {@code all: true} for every one): write operations,
 *       off unless {@code management.endpoint.outbox.access=unrestricted}.
 * </ul>
 */
@Endpoint(id = "outbox", defaultAccess = Access.READ_ONLY)
public class OutboxEndpoint {

  private static final String DEAD_LETTERS = "dead-letters";

  private final Outbox outbox;
  private final OutboxStore store;

  /**
   * The endpoint of an outbox.
   *
   * @param outbox the outbox: health and dead letters (a replay wakes its processor)
   * @param store its store: aggregate counts
   */
  public OutboxEndpoint(Outbox outbox, OutboxStore store) {
    this.outbox = outbox;
    this.store = store;
  }

  /**
   * The status.
   *
   * @return health snapshot and aggregate counts
   */
  @ReadOperation
  public Map<String, Object> status() {
    OutboxHealth health = outbox.health();
    AggregateCounts aggregates = store.aggregateCounts();
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("running", health.running());
    status.put("deliveryMode", health.deliveryMode().name());
    status.put("instanceId", health.instanceId());
    status.put("pending", health.pending());
    status.put("lag", health.lag().toString());
    status.put("deadLetters", health.deadLetters());
    status.put("aggregatesRetrying", aggregates.retrying());
    status.put("aggregatesHeld", aggregates.held());
    status.put("leases", aggregates.leasesByInstance());
    status.put("lastError", health.lastError());
    status.put("lastErrorAt", text(health.lastErrorAt()));
    return status;
  }

  /**
   * A page of dead letters, oldest first.
   *
   * @param section {@code dead-letters}
   * @return the page and the total, or {@code null} (404) for another section
   */
  @ReadOperation
  public @Nullable Map<String, Object> deadLetters(
      @Selector String section,
      @Nullable String eventType,
      @Nullable String aggregateType,
      @Nullable String aggregateId,
      @Nullable String error,
      @Nullable String since,
      @Nullable String until,
      @Nullable Integer offset,
      @Nullable Integer limit) {
    if (!DEAD_LETTERS.equals(section)) {
      return null;
    }
    DeadLetterQuery query = query(eventType, aggregateType, aggregateId, error, since, until);
    try {
      query = query.page(offset == null ? 0 : offset, limit == null ? 50 : limit);
    } catch (IllegalArgumentException e) {
      throw badRequest(e.getMessage());
    }
    List<Map<String, Object>> page =
        outbox.deadLetters().list(query).stream().map(DeadLetter::summary).toList();
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("total", outbox.deadLetters().count(query));
    result.put("offset", query.offset());
    result.put("limit", query.limit());
    result.put("deadLetters", page);
    return result;
  }

  /**
   * One dead letter.
   *
   * @param section {@code dead-letters}
   * @param id the message id
   * @return the dead letter, or {@code null} (404)
   */
  @ReadOperation
  public @Nullable Map<String, Object> deadLetter(@Selector String section, @Selector String id) {
    if (!DEAD_LETTERS.equals(section)) {
      return null;
    }
    UUID messageId;
    try {
      messageId = UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      return null;
    }
    return outbox.deadLetters().find(messageId).map(DeadLetter::details).orElse(null);
  }

  /**
   * Replays or purges dead letters named by ids, by filters, or all of them.
   *
   * @param section {@code dead-letters}
   * @param action {@code replay} or {@code purge}
   * @return how many matched and how many were changed, or {@code null} (404)
   */
  @WriteOperation
  public @Nullable Map<String, Object> act(
      @Selector String section,
      @Selector String action,
      @Nullable List<String> ids,
      @Nullable String eventType,
      @Nullable String aggregateType,
      @Nullable String aggregateId,
      @Nullable String error,
      @Nullable String since,
      @Nullable String until,
      @Nullable Boolean all) {
    boolean replay = "replay".equals(action);
    if (!DEAD_LETTERS.equals(section) || !(replay || "purge".equals(action))) {
      return null;
    }
    DeadLetterQuery query = query(eventType, aggregateType, aggregateId, error, since, until);
    boolean filtered = !query.equals(DeadLetterQuery.all());
    boolean byIds = ids != null && !ids.isEmpty();
    if (byIds == (filtered || Boolean.TRUE.equals(all))) {
      throw badRequest(
          "Give ids, or filters (eventType, aggregateType, aggregateId, error, since, until), or"
              + " all: true; not both and not none");
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("action", action);
    if (byIds) {
      List<UUID> messages = ids.stream().map(OutboxEndpoint::messageId).toList();
      result.put("matched", messages.size());
      int changed =
          replay ? outbox.deadLetters().replay(messages) : outbox.deadLetters().purge(messages);
      result.put(replay ? "replayed" : "purged", changed);
      return result;
    }
    result.put("matched", outbox.deadLetters().count(query));
    int changed =
        replay ? outbox.deadLetters().replayAll(query) : outbox.deadLetters().purgeAll(query);
    result.put(replay ? "replayed" : "purged", changed);
    return result;
  }

  /** The query of the filters; a filter not given leaves the query open in that respect. */
  private static DeadLetterQuery query(
      @Nullable String eventType,
      @Nullable String aggregateType,
      @Nullable String aggregateId,
      @Nullable String error,
      @Nullable String since,
      @Nullable String until) {
    return DeadLetterQuery.all()
        .aggregate(given(aggregateType), given(aggregateId))
        .eventType(given(eventType))
        .errorContains(given(error))
        .since(instant("since", given(since)))
        .until(instant("until", given(until)));
  }

  /**
   * A filter's value, or {@code null} when it is blank: a form's empty field filters nothing (an
   * empty error text would match every dead letter, and a purge with it would delete them all).
   */
  private static @Nullable String given(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  private static @Nullable Instant instant(String name, @Nullable String value) {
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw badRequest(
          name + " must be an ISO-8601 instant such as 2026-11-26T08:00:00Z, but was " + value);
    }
  }

  private static InvalidEndpointRequestException badRequest(String message) {
    return new InvalidEndpointRequestException(message, message);
  }

  private static UUID messageId(@Nullable String id) {
    if (id == null) {
      throw badRequest("ids must be message ids (UUIDs), but one was null");
    }
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw badRequest("ids must be message ids (UUIDs), but one was " + id);
    }
  }

  private static @Nullable String text(@Nullable Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
