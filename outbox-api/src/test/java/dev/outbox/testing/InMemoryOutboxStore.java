package dev.outbox.testing;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.LocalCommitHandOver;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The reference implementation of {@link OutboxStore} in memory, for engine tests: messages
 * append-only per aggregate with a gap-free {@code seq}, one head per aggregate, leases fenced by a
 * token. Every public method is one transaction (the object's monitor), and every instant it stamps
 * comes from its {@link Clock}: the store's clock, on which leases and retries run.
 */
public final class InMemoryOutboxStore implements OutboxStore {

  /**
   * What a message is, as the operators' view of the tables shows it. A dead-lettered message
   * leaves the messages, as it leaves the JDBC store's table, unless its aggregate is held on it:
   * then it stays, pending, until a replay or a purge.
   */
  public enum Status {
    /** Behind its head's cursor: waiting to be published (or held on a dead letter). */
    PENDING,
    /** At or before its head's cursor and acknowledged by the broker. */
    PUBLISHED
  }

  /**
   * A snapshot of one message row and, where it is the head's next message, the head's state.
   *
   * @param message the message; carries the head's failed attempts when it is the next one
   * @param status pending or published
   * @param nextAttemptAt when the head is due again, if this is its next message and nobody holds
   *     it; {@code null} otherwise
   * @param lastError the head's last failure, if this is its next message; {@code null} otherwise
   * @param claimedBy the head's holder while the message waits, or {@code null}
   */
  public record Row(
      OutboxMessage message,
      Status status,
      Instant nextAttemptAt,
      String lastError,
      String claimedBy) {}

  /**
   * A snapshot of one head.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param writeSeq the last seq written
   * @param deliveredSeq the cursor
   * @param availableAt when it is claimable: now, the end of a lease, or the next retry
   * @param claimedBy the last holder; {@code null} once released
   * @param leaseToken incremented by every grant
   * @param attempts failed attempts of message {@code deliveredSeq + 1}
   * @param lastError the last failure of that message
   * @param held whether it waits at a dead letter
   */
  public record Head(
      String aggregateType,
      String aggregateId,
      long writeSeq,
      long deliveredSeq,
      Instant availableAt,
      String claimedBy,
      long leaseToken,
      int attempts,
      String lastError,
      boolean held) {

    /**
     * The hold its holder has, as a processor would name it.
     *
     * @return the lease under the current token
     */
    public Lease lease() {
      return new Lease(aggregateType, aggregateId, leaseToken);
    }
  }

  private record Key(String type, String id) {
    static Key of(Lease lease) {
      return new Key(lease.aggregateType(), lease.aggregateId());
    }

    static Key of(OutboxMessage message) {
      return new Key(message.aggregateType(), message.aggregateId());
    }
  }

  /** A stored row: the message (attempts always 0) and its global write order. */
  private record Stored(OutboxMessage message, long position) {}

  /** One aggregate's head and its messages. Guarded by the store's monitor. */
  private static final class HeadState {
    final Key key;
    final long order;
    final TreeMap<Long, Stored> messages = new TreeMap<>();
    final long epoch;
    long writeSeq;
    long deliveredSeq;
    long publishedSeq;
    Instant availableAt;
    String claimedBy;
    long leaseToken;
    int attempts;
    String lastError;
    boolean held;

    HeadState(Key key, long order, Instant now, long epoch) {
      this.key = key;
      this.order = order;
      this.availableAt = now;
      this.epoch = epoch;
    }

    boolean pending() {
      return writeSeq > deliveredSeq;
    }

    boolean due(Instant now) {
      return pending() && !held && !availableAt.isAfter(now);
    }

    void release(Instant now) {
      claimedBy = null;
      availableAt = now;
    }

    void moveCursor(long seq) {
      if (seq > deliveredSeq) {
        deliveredSeq = seq;
        attempts = 0;
        lastError = null;
      }
    }

    Head snapshot() {
      return new Head(
          key.type(),
          key.id(),
          writeSeq,
          deliveredSeq,
          availableAt,
          claimedBy,
          leaseToken,
          attempts,
          lastError,
          held);
    }
  }

  private record DeadLetterEntry(DeadLetter letter, long seq, long order) {}

  private final Clock clock;
  private final LocalCommitHandOver handOver = new LocalCommitHandOver();
  private final Map<Key, HeadState> heads = new LinkedHashMap<>();
  private final Map<UUID, DeadLetterEntry> deadLetters = new LinkedHashMap<>();
  private long nextPosition = 1;
  private long nextHeadOrder = 1;
  private long nextDeadLetterOrder = 1;
  private long lastEpoch;

  /**
   * A store on a clock.
   *
   * @param clock the store's clock: leases, retries and timestamps
   */
  public InMemoryOutboxStore(Clock clock) {
    this.clock = clock;
  }

  // ---------------------------------------------------------------- the test facade (the writer)

  /**
   * Appends a message to its aggregate with the next seq, as a committed flush does; the head
   * becomes pending and, if nobody holds it, claimable at once.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param eventType the event type
   * @return the stored message, with its seq
   */
  public synchronized OutboxMessage add(
      String aggregateType, String aggregateId, String eventType) {
    return add(aggregateType, aggregateId, eventType, "{\"n\":" + nextPosition + "}", Map.of());
  }

  /**
   * Appends a message with its payload and headers, as {@link #add(String, String, String)} does.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param eventType the event type
   * @param payload the JSON payload
   * @param headers the headers
   * @return the stored message, with its seq
   */
  public synchronized OutboxMessage add(
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      Map<String, String> headers) {
    Instant now = clock.instant();
    return append(
        new OutboxMessage(
            UUID.randomUUID(),
            0,
            aggregateType,
            aggregateId,
            eventType,
            OutboxMessage.JSON,
            payload,
            headers,
            now,
            now,
            0),
        now);
  }

  private OutboxMessage append(OutboxMessage message, Instant now) {
    Key key = Key.of(message);
    HeadState head = heads.computeIfAbsent(key, k -> newHead(k, now));
    long seq = ++head.writeSeq;
    OutboxMessage stored =
        new OutboxMessage(
            message.id(),
            seq,
            message.aggregateType(),
            message.aggregateId(),
            message.eventType(),
            message.contentType(),
            message.payload(),
            message.headers(),
            message.occurredAt(),
            message.createdAt(),
            0,
            head.epoch,
            seq - 1);
    head.messages.put(seq, new Stored(stored, nextPosition++));
    return stored;
  }

  /**
   * A new head, its epoch the store's clock in milliseconds, and larger than any before even on a
   * clock that stands still: a head cleanup deleted and a write created again is a new stream.
   */
  private HeadState newHead(Key key, Instant now) {
    lastEpoch = Math.max(now.toEpochMilli(), lastEpoch + 1);
    return new HeadState(key, nextHeadOrder++, now, lastEpoch);
  }

  /**
   * Grants the head of an aggregate to an instance with all its pending messages, as a writer on
   * the fast path does: a new token. Like the writer, refuses a head that is held, leased or
   * waiting for a retry.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param instanceId the processor it is leased to
   * @param until when the lease runs out, on the store's clock
   * @return the leased head, to hand over with {@link #handOver}
   */
  public synchronized LeasedHead leaseHead(
      String aggregateType, String aggregateId, String instanceId, Instant until) {
    HeadState head = heads.get(new Key(aggregateType, aggregateId));
    if (head == null || !head.pending()) {
      throw new IllegalStateException(aggregateType + '/' + aggregateId + " has nothing pending");
    }
    if (head.held || head.availableAt.isAfter(clock.instant())) {
      throw new IllegalStateException(
          aggregateType + '/' + aggregateId + " is held, leased or retrying: no writer leases it");
    }
    head.leaseToken++;
    head.claimedBy = instanceId;
    head.availableAt = until;
    return new LeasedHead(
        new Lease(aggregateType, aggregateId, head.leaseToken), next(head, Integer.MAX_VALUE));
  }

  /**
   * The newest row of a message (a replay without a hold appends the message again).
   *
   * @param id the message id
   * @return the row, empty when there is none (never written, or deleted by cleanup)
   */
  public synchronized Optional<Row> row(UUID id) {
    HeadState found = null;
    Stored newest = null;
    for (HeadState head : heads.values()) {
      for (Stored stored : head.messages.values()) {
        if (stored.message().id().equals(id)
            && (newest == null || stored.position() > newest.position())) {
          found = head;
          newest = stored;
        }
      }
    }
    return found == null ? Optional.empty() : Optional.of(row(found, newest.message()));
  }

  private static Row row(HeadState head, OutboxMessage message) {
    long seq = message.seq();
    Status status = seq <= head.deliveredSeq ? Status.PUBLISHED : Status.PENDING;
    boolean next = seq == head.deliveredSeq + 1;
    boolean waiting = seq > head.deliveredSeq;
    return new Row(
        next ? message.withAttempts(head.attempts) : message,
        status,
        next && head.claimedBy == null ? head.availableAt : null,
        next ? head.lastError : null,
        waiting ? head.claimedBy : null);
  }

  /**
   * The head of an aggregate.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @return its state, empty when it has none (never written, or deleted by cleanup)
   */
  public synchronized Optional<Head> head(String aggregateType, String aggregateId) {
    HeadState head = heads.get(new Key(aggregateType, aggregateId));
    return Optional.ofNullable(head == null ? null : head.snapshot());
  }

  /**
   * Every head, in the order their aggregates were first written.
   *
   * @return their states
   */
  public synchronized List<Head> heads() {
    return heads.values().stream().map(HeadState::snapshot).toList();
  }

  /**
   * Every message row, in write order.
   *
   * @return the rows
   */
  public synchronized List<Row> rows() {
    return heads.values().stream()
        .flatMap(head -> head.messages.values().stream().map(s -> Map.entry(head, s)))
        .sorted(Comparator.comparingLong(e -> e.getValue().position()))
        .map(e -> row(e.getKey(), e.getValue().message()))
        .toList();
  }

  /**
   * The dead letter of a message.
   *
   * @param id the message id
   * @return the dead letter, if there is one
   */
  public synchronized Optional<DeadLetter> deadLetter(UUID id) {
    DeadLetterEntry entry = deadLetters.get(id);
    return Optional.ofNullable(entry == null ? null : entry.letter());
  }

  /**
   * How many message rows have a status.
   *
   * @param status the status
   * @return the count
   */
  public synchronized long count(Status status) {
    return heads.values().stream()
        .flatMap(head -> head.messages.values().stream().map(s -> row(head, s.message())))
        .filter(row -> row.status() == status)
        .count();
  }

  // ---------------------------------------------------------------- the port

  @Override
  public synchronized List<LeasedHead> recordAndClaim(
      Collection<? extends HeadOutcome> outcomes, ClaimRequest request) {
    Instant now = clock.instant();
    List<HeadState> continuing = new ArrayList<>();
    for (HeadOutcome outcome : outcomes) {
      HeadState head = apply(outcome, now);
      if (head != null && head.pending()) {
        continuing.add(head);
      } else if (head != null) {
        head.release(now);
      }
    }
    List<LeasedHead> leased = new ArrayList<>();
    int taken = share(continuing, request.limit(), request, now, leased);
    int budget = request.limit() - taken;
    if (request.newHeads() && budget > 0) {
      List<HeadState> granted =
          heads.values().stream()
              .filter(head -> head.due(now))
              .sorted(
                  Comparator.comparing((HeadState head) -> head.availableAt)
                      .thenComparingLong(head -> head.order))
              .limit(budget)
              .toList();
      granted.forEach(head -> head.leaseToken++);
      share(granted, budget, request, now, leased);
    }
    return leased;
  }

  /**
   * Leases heads to the requester and reads their next messages, {@code max(1, limit / heads)}
   * each; heads past the limit are released.
   *
   * @return how many messages were read
   */
  private static int share(
      List<HeadState> taken, int limit, ClaimRequest request, Instant now, List<LeasedHead> into) {
    int count = Math.min(taken.size(), limit);
    for (HeadState head : taken.subList(count, taken.size())) {
      head.release(now);
    }
    if (count == 0) {
      return 0;
    }
    int each = Math.max(1, limit / count);
    int read = 0;
    for (HeadState head : taken.subList(0, count)) {
      head.claimedBy = request.instanceId();
      head.availableAt = now.plus(request.lease());
      List<OutboxMessage> messages = next(head, each);
      read += messages.size();
      into.add(
          new LeasedHead(new Lease(head.key.type(), head.key.id(), head.leaseToken), messages));
    }
    return read;
  }

  /**
   * The next messages behind the cursor, in seq order; the first carries the head's attempts and
   * names the head's published seq as its previous one.
   */
  private static List<OutboxMessage> next(HeadState head, int limit) {
    List<OutboxMessage> messages = new ArrayList<>();
    long prev = head.publishedSeq;
    for (Stored stored : head.messages.tailMap(head.deliveredSeq, false).values()) {
      if (messages.size() == limit) {
        break;
      }
      OutboxMessage message = stored.message().inStream(head.epoch, prev);
      messages.add(messages.isEmpty() ? message.withAttempts(head.attempts) : message);
      prev = message.seq();
    }
    return messages;
  }

  @Override
  public synchronized void record(Collection<? extends HeadOutcome> outcomes) {
    Instant now = clock.instant();
    for (HeadOutcome outcome : outcomes) {
      HeadState head = apply(outcome, now);
      if (head != null) {
        head.release(now);
      }
    }
  }

  /**
   * Applies one outcome if its token still holds the head.
   *
   * @return the head when it stays with its holder for now (delivered, or dead-lettered without a
   *     hold): the caller continues or releases it; {@code null} when the outcome was refused or
   *     already released the head
   */
  private HeadState apply(HeadOutcome outcome, Instant now) {
    Lease lease = outcome.lease();
    HeadState head = heads.get(Key.of(lease));
    if (head == null || head.leaseToken != lease.token() || head.claimedBy == null) {
      return null; // a stale holder changes nothing
    }
    long acknowledged = Math.min(outcome.deliveredSeq(), head.writeSeq);
    if (acknowledged > head.deliveredSeq) {
      // Acknowledged in this round. A seq at or below the cursor may have been dead-lettered: it
      // was never published, and the published seq stays behind it.
      head.publishedSeq = Math.max(head.publishedSeq, acknowledged);
    }
    head.moveCursor(acknowledged);
    if (outcome instanceof HeadOutcome.Delivered) {
      head.attempts = 0;
      head.lastError = null;
      return head;
    }
    if (outcome instanceof HeadOutcome.Retry retry) {
      head.attempts = retry.attempts();
      head.lastError = retry.error();
      head.claimedBy = null;
      head.availableAt = now.plus(retry.retryAfter());
      return null;
    }
    if (outcome instanceof HeadOutcome.DeadLettered dead) {
      return deadLettered(head, dead, now);
    }
    head.release(now); // Released
    return null;
  }

  private HeadState deadLettered(HeadState head, HeadOutcome.DeadLettered dead, Instant now) {
    Stored stored = head.messages.get(dead.seq());
    if (stored == null || dead.seq() <= head.deliveredSeq) {
      head.release(now);
      return null;
    }
    deadLetters.put(
        dead.messageId(),
        new DeadLetterEntry(
            new DeadLetter(
                stored.message().withAttempts(dead.attempts()),
                dead.error(),
                dead.deadLetteredAt()),
            dead.seq(),
            nextDeadLetterOrder++));
    if (dead.hold()) {
      head.moveCursor(dead.seq() - 1);
      head.held = true;
      head.attempts = dead.attempts();
      head.lastError = dead.error();
      head.release(now);
      return null;
    }
    head.messages.remove(dead.seq());
    head.moveCursor(dead.seq());
    return head;
  }

  @Override
  public synchronized List<Lease> renew(
      String instanceId, Collection<Lease> leases, Duration lease) {
    Instant now = clock.instant();
    List<Lease> lost = new ArrayList<>();
    for (Lease held : leases) {
      HeadState head = heads.get(Key.of(held));
      if (head != null && head.leaseToken == held.token() && instanceId.equals(head.claimedBy)) {
        head.availableAt = now.plus(lease);
      } else {
        lost.add(held);
      }
    }
    return lost;
  }

  @Override
  public synchronized OutboxStats stats() {
    long pending = 0;
    Instant oldest = null;
    for (HeadState head : heads.values()) {
      if (!head.pending()) {
        continue;
      }
      pending += head.writeSeq - head.deliveredSeq;
      Stored next = head.messages.get(head.deliveredSeq + 1);
      if (next != null && (oldest == null || next.message().createdAt().isBefore(oldest))) {
        oldest = next.message().createdAt();
      }
    }
    return new OutboxStats(pending, oldest, deadLetters.size());
  }

  @Override
  public synchronized int deleteWritten(Instant createdBefore, int limit) {
    List<Map.Entry<HeadState, Stored>> deletable = new ArrayList<>();
    for (HeadState head : heads.values()) {
      for (Stored stored : head.messages.values()) {
        if (stored.message().createdAt().isBefore(createdBefore)) {
          deletable.add(Map.entry(head, stored));
        }
      }
    }
    deletable.sort(Comparator.comparingLong(e -> e.getValue().position()));
    int deleted = 0;
    for (Map.Entry<HeadState, Stored> entry :
        deletable.subList(0, Math.min(limit, deletable.size()))) {
      entry.getKey().messages.remove(entry.getValue().message().seq());
      deleted++;
    }
    return deleted;
  }

  @Override
  public synchronized int deleteDelivered(Instant createdBefore, int limit) {
    List<Map.Entry<HeadState, Stored>> deletable = new ArrayList<>();
    for (HeadState head : heads.values()) {
      for (Stored stored : head.messages.headMap(head.deliveredSeq, true).values()) {
        if (stored.message().createdAt().isBefore(createdBefore)) {
          deletable.add(Map.entry(head, stored));
        }
      }
    }
    deletable.sort(
        Comparator.comparing((Map.Entry<HeadState, Stored> e) -> e.getValue().message().createdAt())
            .thenComparingLong(e -> e.getValue().position()));
    int deleted = 0;
    for (Map.Entry<HeadState, Stored> entry : deletable) {
      if (deleted == limit) {
        break;
      }
      entry.getKey().messages.remove(entry.getValue().message().seq());
      deleted++;
    }
    if (deleted == limit) {
      return deleted; // idle heads go once a batch comes out short, as the JDBC store's do
    }
    Iterator<HeadState> idle = heads.values().iterator();
    while (idle.hasNext()) {
      HeadState head = idle.next();
      if (!head.pending() && !head.held && head.claimedBy == null && head.messages.isEmpty()) {
        idle.remove();
      }
    }
    return deleted;
  }

  @Override
  public synchronized AggregateCounts aggregateCounts() {
    Instant now = clock.instant();
    long retrying = 0;
    long held = 0;
    long waitingForBroker = 0;
    Map<String, Long> leases = new HashMap<>();
    for (HeadState head : heads.values()) {
      boolean leased = head.claimedBy != null && head.availableAt.isAfter(now);
      if (leased) {
        leases.merge(head.claimedBy, 1L, Long::sum);
      }
      if (head.held) {
        held++;
      } else if (head.pending() && head.claimedBy == null) {
        retrying += head.attempts > 0 ? 1 : 0;
        boolean broker =
            head.lastError != null && head.lastError.startsWith(AggregateCounts.BROKER_UNAVAILABLE);
        waitingForBroker += broker ? 1 : 0;
      }
    }
    return new AggregateCounts(retrying, held, leases, waitingForBroker);
  }

  @Override
  public synchronized Optional<DeadLetter> findDeadLetter(UUID id) {
    return deadLetter(id);
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
        .filter(entry -> matches(entry.letter(), query))
        .sorted(
            Comparator.comparing((DeadLetterEntry entry) -> entry.letter().deadLetteredAt())
                .thenComparingLong(DeadLetterEntry::order))
        .map(DeadLetterEntry::letter);
  }

  private static boolean matches(DeadLetter letter, DeadLetterQuery query) {
    OutboxMessage message = letter.message();
    return (query.eventType() == null || query.eventType().equals(message.eventType()))
        && (query.aggregateType() == null || query.aggregateType().equals(message.aggregateType()))
        && (query.aggregateId() == null || query.aggregateId().equals(message.aggregateId()))
        && (query.errorContains() == null
            || (letter.lastError() != null
                && letter
                    .lastError()
                    .toLowerCase(Locale.ROOT)
                    .contains(query.errorContains().toLowerCase(Locale.ROOT))))
        && (query.since() == null || !letter.deadLetteredAt().isBefore(query.since()))
        && (query.until() == null || letter.deadLetteredAt().isBefore(query.until()));
  }

  @Override
  public synchronized int replayDeadLetters(Collection<UUID> ids) {
    Instant now = clock.instant();
    int replayed = 0;
    for (UUID id : new LinkedHashSet<>(ids)) {
      DeadLetterEntry entry = deadLetters.remove(id);
      if (entry == null) {
        continue;
      }
      replayed++;
      OutboxMessage message = entry.letter().message();
      HeadState head = heads.get(Key.of(message));
      if (heldAt(head, entry)) {
        head.held = false;
        head.attempts = 0;
        head.lastError = null;
        head.availableAt = now;
      } else {
        append(
            new OutboxMessage(
                message.id(),
                0,
                message.aggregateType(),
                message.aggregateId(),
                message.eventType(),
                message.contentType(),
                message.payload(),
                message.headers(),
                message.occurredAt(),
                now,
                0),
            now);
      }
    }
    return replayed;
  }

  @Override
  public synchronized int purgeDeadLetters(Collection<UUID> ids) {
    Instant now = clock.instant();
    int purged = 0;
    for (UUID id : new LinkedHashSet<>(ids)) {
      DeadLetterEntry entry = deadLetters.remove(id);
      if (entry == null) {
        continue;
      }
      purged++;
      HeadState head = heads.get(Key.of(entry.letter().message()));
      if (heldAt(head, entry)) {
        head.held = false;
        head.messages.remove(entry.seq());
        head.moveCursor(entry.seq());
        head.availableAt = now;
      }
    }
    return purged;
  }

  private static boolean heldAt(HeadState head, DeadLetterEntry entry) {
    return head != null && head.held && head.deliveredSeq + 1 == entry.seq();
  }

  @Override
  public Optional<CommitHandOver> commitHandOver() {
    return Optional.of(handOver);
  }

  /**
   * Hands heads leased with {@link #leaseHead} to the outbox that receives leases, as a writer does
   * after its commit.
   *
   * @param heads the heads
   * @param leaseUntil when their lease runs out
   * @throws IllegalStateException when no running outbox receives leases
   */
  public void handOver(List<LeasedHead> heads, Instant leaseUntil) {
    CommitHandOver.LeaseReceiver receiver = handOver.leaseReceiver();
    if (receiver == null) {
      throw new IllegalStateException("No running outbox receives leases");
    }
    handOver.handOver(receiver, heads, leaseUntil);
  }

  /**
   * The outbox that receives leases, if any.
   *
   * @return the receiver, or {@code null}
   */
  public CommitHandOver.LeaseReceiver leaseReceiver() {
    return handOver.leaseReceiver();
  }
}
