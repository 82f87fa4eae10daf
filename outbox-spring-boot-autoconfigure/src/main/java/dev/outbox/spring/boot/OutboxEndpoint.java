package dev.outbox.spring.boot;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
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
 *       &since=&until=&offset=0&limit=50}: a page of dead letters and the total; {@code since} and
 *       {@code until} take an ISO-8601 instant, a date, or how long ago ({@code 2h});
 *   <li>{@code GET /actuator/outbox/dead-letters/{id}}: one, with payload, headers and error;
 *   <li>{@code POST /actuator/outbox/dead-letters/replay} and {@code .../purge} with a JSON body of
 *       {@code ids} (one comma-separated string: the actuator reads the body as a map of strings)
 *       or the same filters (and {@code all: true} for every one): write operations, off unless
 *       {@code management.endpoint.outbox.access=unrestricted}.
 * </ul>
 *
 * <p>Bad input is refused with {@link BadEndpointInput}: over HTTP a 400 whose JSON body names the
 * parameter, its value and the form it takes ({@link OutboxWebEndpointExtension}).
 */
@Endpoint(id = "outbox", defaultAccess = Access.READ_ONLY)
public class OutboxEndpoint {

  private static final String DEAD_LETTERS = "dead-letters";
  private static final String FILTERS =
      "filters (eventType, aggregateType, aggregateId, error, since, until)";
  private static final int DEFAULT_LIMIT = 50;
  private static final int MAX_LIMIT = 10_000;

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
      @Nullable String offset,
      @Nullable String limit) {
    if (!DEAD_LETTERS.equals(section)) {
      return null;
    }
    DeadLetterQuery query =
        query(eventType, aggregateType, aggregateId, error, since, until)
            .page(
                number("offset", offset, 0, 0, Integer.MAX_VALUE),
                number("limit", limit, DEFAULT_LIMIT, 1, MAX_LIMIT));
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
    boolean everyOne = Boolean.TRUE.equals(all);
    if (byIds == (filtered || everyOne)) {
      throw new BadEndpointInput(
          "ids, filters, all",
          byIds ? "ids and " + (filtered ? "filters" : "all") : null,
          "ids, or " + FILTERS + ", or all: true; not both and not none (a blank filter is none)");
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

  /** A page parameter: the default when not given, else an integer in range. */
  private static int number(String name, @Nullable String value, int absent, int min, int max) {
    if (given(value) == null) {
      return absent;
    }
    try {
      int number = Integer.parseInt(value.strip());
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException e) {
      // the answer below
    }
    throw new BadEndpointInput(name, value, "an integer from " + min + " to " + max);
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
      return PointInTime.parse(value, Clock.systemUTC());
    } catch (IllegalArgumentException e) {
      throw new BadEndpointInput(name, value, PointInTime.ACCEPTED);
    }
  }

  private static UUID messageId(@Nullable String id) {
    try {
      return UUID.fromString(Objects.requireNonNull(id));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new BadEndpointInput("ids", String.valueOf(id), "a list of message ids (UUIDs)");
    }
  }

  private static @Nullable String text(@Nullable Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
