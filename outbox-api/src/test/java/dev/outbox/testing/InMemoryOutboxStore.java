package dev.outbox.testing;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * An {@link OutboxStore} in memory that keeps every contract of the port, for engine tests. Every
 * method is one atomic step (the object's monitor is the "transaction"). The clock decides whether
 * a lease still holds when a failure is recorded.
 */
public final class InMemoryOutboxStore implements OutboxStore {

  /** Status of a row in the outbox table. */
  public enum Status {
    /** Waiting to be published. */
    PENDING,
    /** Acknowledged by the broker. */
    PUBLISHED
  }

  /**
   * A snapshot of one outbox row.
   *
   * @param message the message with its attempt count
   * @param status pending or published
   * @param nextAttemptAt when it is due
   * @param lastError the last failure, or null
   * @param claimedBy the lease holder, or null
   * @param claimedUntil the lease end, or null
   * @param publishedAt when it was published, or null
   */
  public record Row(
      OutboxMessage message,
      Status status,
      Instant nextAttemptAt,
      String lastError,
      String claimedBy,
      Instant claimedUntil,
      Instant publishedAt) {}

  private record Key(String type, String id) {
    static Key of(OutboxMessage message) {
      return new Key(message.aggregateType(), message.aggregateId());
    }
  }

  private final Clock clock;
  private final TreeMap<Long, Row> rows = new TreeMap<>();
  private final Map<UUID, Long> positions = new LinkedHashMap<>();
  private final Map<UUID, DeadLetter> deadLetters = new LinkedHashMap<>();
  private long nextPosition = 1;

  /**
   * A store whose leases are checked against a clock.
   *
   * @param clock the same clock the outbox uses
   */
  public InMemoryOutboxStore(Clock clock) {
    this.clock = clock;
  }

  /**
   * Adds a pending message, due at once, as the flush listener would.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param eventType the event type
   * @return the stored message
   */
  public synchronized OutboxMessage add(
      String aggregateType, String aggregateId, String eventType) {
    Instant now = clock.instant();
    long position = nextPosition++;
    OutboxMessage message =
        new OutboxMessage(
            UUID.randomUUID(),
            position,
            aggregateType,
            aggregateId,
            eventType,
            OutboxMessage.JSON,
            "{\"n\":" + position + "}",
            Map.of(),
            now,
            now,
            0);
    rows.put(position, new Row(message, Status.PENDING, now, null, null, null, null));
    positions.put(message.id(), position);
    return message;
  }

  /**
   * Leases a pending message, as a flush on the fast path writes it.
   *
   * @param id the message
   * @param instanceId the processor it is leased to
   * @param until when the lease runs out
   */
  public synchronized void lease(UUID id, String instanceId, Instant until) {
    long position = positions.get(id);
    Row row = rows.get(position);
    rows.put(
        position,
        new Row(
            row.message(),
            row.status(),
            row.nextAttemptAt(),
            row.lastError(),
            instanceId,
            until,
            row.publishedAt()));
  }

  /**
   * The outbox row of a message.
   *
   * @param id the message id
   * @return the row, empty when it is not in the outbox table (dead-lettered, deleted, unknown)
   */
  public synchronized Optional<Row> row(UUID id) {
    Long position = positions.get(id);
    return Optional.ofNullable(position == null ? null : rows.get(position));
  }

  /**
   * The dead letter of a message.
   *
   * @param id the message id
   * @return the dead letter, if there is one
   */
  public synchronized Optional<DeadLetter> deadLetter(UUID id) {
    return Optional.ofNullable(deadLetters.get(id));
  }

  /**
   * How many outbox rows have a status.
   *
   * @param status the status
   * @return the count
   */
  public synchronized long count(Status status) {
    return rows.values().stream().filter(row -> row.status() == status).count();
  }

  @Override
  public synchronized List<OutboxMessage> claim(ClaimRequest request) {
    Set<Key> held = new HashSet<>();
    if (request.holdAggregateOnDeadLetter()) {
      deadLetters.values().forEach(letter -> held.add(Key.of(letter.message())));
    }
    // Like the JDBC store: an aggregate is blocked from its first pending message that is not due
    // or leased; its messages before that can be claimed, several in one batch.
    Set<Key> blocked = new HashSet<>();
    List<OutboxMessage> claimed = new ArrayList<>();
    for (Map.Entry<Long, Row> entry : rows.entrySet()) {
      Row row = entry.getValue();
      if (claimed.size() == request.limit()) {
        break;
      }
      if (row.status() != Status.PENDING) {
        continue;
      }
      Key key = Key.of(row.message());
      boolean claimable = claimable(row, request.now());
      if (!claimable && request.orderedPerAggregate()) {
        blocked.add(key);
      }
      if (!claimable || blocked.contains(key) || held.contains(key)) {
        continue;
      }
      entry.setValue(
          new Row(
              row.message(),
              row.status(),
              row.nextAttemptAt(),
              row.lastError(),
              request.instanceId(),
              request.leaseUntil(),
              null));
      claimed.add(row.message());
    }
    return claimed;
  }

  private static boolean claimable(Row row, Instant now) {
    boolean due = !row.nextAttemptAt().isAfter(now);
    boolean leased = row.claimedUntil() != null && row.claimedUntil().isAfter(now);
    return due && !leased;
  }

  @Override
  public synchronized void record(String instanceId, Collection<? extends Outcome> outcomes) {
    for (Outcome outcome : outcomes) {
      Long position = positions.get(outcome.messageId());
      Row row = position == null ? null : rows.get(position);
      if (row == null || row.status() != Status.PENDING) {
        continue;
      }
      if (outcome instanceof Outcome.Published published) {
        rows.put(
            position,
            new Row(
                row.message(),
                Status.PUBLISHED,
                row.nextAttemptAt(),
                row.lastError(),
                null,
                null,
                published.publishedAt()));
      } else if (leasedTo(row, instanceId)) {
        recordFailure(position, row, outcome);
      }
    }
  }

  /** Like the JDBC store: still claimed by this instance, even if the lease ran out meanwhile. */
  private static boolean leasedTo(Row row, String instanceId) {
    return instanceId.equals(row.claimedBy());
  }

  private void recordFailure(long position, Row row, Outcome outcome) {
    if (outcome instanceof Outcome.Released) {
      rows.put(
          position,
          new Row(
              row.message(),
              Status.PENDING,
              row.nextAttemptAt(),
              row.lastError(),
              null,
              null,
              null));
    } else if (outcome instanceof Outcome.Failed failed) {
      rows.put(
          position,
          new Row(
              row.message().withAttempts(failed.attempts()),
              Status.PENDING,
              failed.nextAttemptAt(),
              failed.error(),
              null,
              null,
              null));
    } else if (outcome instanceof Outcome.DeadLettered dead) {
      rows.remove(position);
      positions.remove(dead.messageId());
      deadLetters.put(
          dead.messageId(),
          new DeadLetter(
              row.message().withAttempts(dead.attempts()), dead.error(), dead.deadLetteredAt()));
    }
  }

  @Override
  public synchronized OutboxStats stats() {
    List<Row> pending = rows.values().stream().filter(r -> r.status() == Status.PENDING).toList();
    return new OutboxStats(
        pending.size(),
        pending.isEmpty() ? null : pending.get(0).message().createdAt(),
        deadLetters.size());
  }

  @Override
  public synchronized int deletePublished(Instant publishedBefore, int limit) {
    int deleted = 0;
    Iterator<Row> iterator = rows.values().iterator();
    while (iterator.hasNext() && deleted < limit) {
      Row row = iterator.next();
      if (row.status() == Status.PUBLISHED && row.publishedAt().isBefore(publishedBefore)) {
        iterator.remove();
        positions.remove(row.message().id());
        deleted++;
      }
    }
    return deleted;
  }

  @Override
  public synchronized List<DeadLetter> findDeadLetters(DeadLetterQuery query) {
    return matching(query).skip(query.offset()).limit(query.limit()).toList();
  }

  @Override
  public synchronized long countDeadLetters(DeadLetterQuery query) {
    return matching(query).count();
  }

  private Stream<DeadLetter> matching(DeadLetterQuery query) {
    return deadLetters.values().stream()
        .filter(letter -> matches(letter, query))
        .sorted(
            Comparator.comparing(DeadLetter::deadLetteredAt)
                .thenComparingLong(letter -> letter.message().position()));
  }

  private static boolean matches(DeadLetter letter, DeadLetterQuery query) {
    OutboxMessage message = letter.message();
    return (query.eventType() == null || query.eventType().equals(message.eventType()))
        && (query.aggregateType() == null || query.aggregateType().equals(message.aggregateType()))
        && (query.aggregateId() == null || query.aggregateId().equals(message.aggregateId()))
        && (query.since() == null || !letter.deadLetteredAt().isBefore(query.since()))
        && (query.until() == null || letter.deadLetteredAt().isBefore(query.until()));
  }

  @Override
  public synchronized int replayDeadLetters(Collection<UUID> ids, Instant now) {
    int replayed = 0;
    for (UUID id : new HashSet<>(ids)) {
      DeadLetter letter = deadLetters.remove(id);
      if (letter != null) {
        OutboxMessage message = letter.message().withAttempts(0);
        rows.put(message.position(), new Row(message, Status.PENDING, now, null, null, null, null));
        positions.put(id, message.position());
        replayed++;
      }
    }
    return replayed;
  }

  @Override
  public synchronized int purgeDeadLetters(Collection<UUID> ids) {
    int purged = 0;
    for (UUID id : new HashSet<>(ids)) {
      if (deadLetters.remove(id) != null) {
        purged++;
      }
    }
    return purged;
  }
}
