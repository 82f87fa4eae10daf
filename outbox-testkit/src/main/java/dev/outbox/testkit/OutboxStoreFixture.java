package dev.outbox.testkit;

import static org.awaitility.Awaitility.await;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hooks a store's test implements for the {@link OutboxStoreContract} (the store, its writer,
 * its tables, its clock) and the helpers the contract's tests and the store's own tests write with:
 * {@link #write}, {@link #claim}, {@link #delivered}. Extend {@link OutboxStoreContract}, not this.
 */
public abstract class OutboxStoreFixture {

  /** The aggregate type of every message the contract writes. */
  protected static final String AGGREGATE_TYPE = "PurchaseOrder";

  /** The event type of an aggregate's first event. */
  protected static final String FIRST_EVENT_TYPE = "order.placed";

  /** The event type of an aggregate's further events. */
  protected static final String NEXT_EVENT_TYPE = "Noted";

  /** The lease of a claim unless a test names another. */
  protected static final Duration LEASE = Duration.ofSeconds(60);

  /** How long a test waits at most for a head that is due on the store's clock. */
  private static final Duration DUE_WITHIN = Duration.ofSeconds(15);

  private static final AtomicLong IDS = new AtomicLong(1);

  /** Package-private: extend {@link OutboxStoreContract}. */
  OutboxStoreFixture() {}

  /**
   * One message to write.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param eventType the event type on the wire
   * @param text what the event says: the payload is {@link #payload()}
   * @param headers the message's headers
   */
  public record NewMessage(
      String aggregateType,
      String aggregateId,
      String eventType,
      String text,
      Map<String, String> headers) {

    /** Checks the components and copies the headers. */
    public NewMessage {
      Objects.requireNonNull(aggregateType, "aggregateType");
      Objects.requireNonNull(aggregateId, "aggregateId");
      Objects.requireNonNull(eventType, "eventType");
      Objects.requireNonNull(text, "text");
      headers = Map.copyOf(headers);
    }

    /**
     * The message as an event, for a writer that serializes events: its only property is {@code
     * text}; its {@link DomainEvent#eventType()} and {@link DomainEvent#headers()} are the
     * message's.
     *
     * @return the event
     */
    public DomainEvent event() {
      return new TextEvent(text, eventType, headers);
    }

    /**
     * The payload of the message for a writer that takes it as it is: {@code {"text":"..."}}, as
     * Jackson writes {@link #event()}.
     *
     * @return the JSON payload
     */
    public String payload() {
      return "{\"text\":\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }
  }

  /** The event of a {@link NewMessage}; Jackson sees its one property, {@code text}. */
  public static final class TextEvent implements DomainEvent {
    private final String text;
    private final String eventType;
    private final Map<String, String> headers;

    TextEvent(String text, String eventType, Map<String, String> headers) {
      this.text = text;
      this.eventType = eventType;
      this.headers = headers;
    }

    /**
     * What the event says.
     *
     * @return the text
     */
    public String getText() {
      return text;
    }

    @Override
    public String eventType() {
      return eventType;
    }

    @Override
    public Map<String, String> headers() {
      return headers;
    }
  }

  /**
   * A head as the store keeps it.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param writeSeq the last seq written
   * @param deliveredSeq the cursor
   * @param availableAt when it is claimable: the end of a lease or of a retry's wait, on the
   *     store's clock
   * @param claimedBy its holder; {@code null} once released
   * @param leaseToken the token of the last grant
   * @param attempts the failed attempts of the message after the cursor
   * @param lastError that message's last failure
   * @param held whether it waits at a dead letter
   */
  public record StoredHead(
      String aggregateType,
      String aggregateId,
      long writeSeq,
      long deliveredSeq,
      Instant availableAt,
      String claimedBy,
      long leaseToken,
      int attempts,
      String lastError,
      boolean held) {}

  /**
   * A message as the store keeps it.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param seq its place in its aggregate
   * @param delivered whether it is at or before its head's cursor
   */
  public record StoredMessage(
      String aggregateType, String aggregateId, long seq, boolean delivered) {}

  /**
   * The store under test, the same for every test of the class.
   *
   * @return the store
   */
  protected abstract OutboxStore store();

  /** Removes every message, head and dead letter; called before each test. */
  protected abstract void clear();

  /**
   * Writes messages in one committed transaction, as an application does: each gets the next seq of
   * its aggregate, in list order.
   *
   * @param messages the messages
   */
  protected abstract void commit(List<NewMessage> messages);

  /**
   * Every head the store keeps.
   *
   * @return the heads, in any order
   */
  protected abstract List<StoredHead> heads();

  /**
   * Every message the store keeps (dead-lettered messages have left it, unless their aggregate is
   * held on them).
   *
   * @return the messages in write order
   */
  protected abstract List<StoredMessage> messages();

  /**
   * Lets the store's clock move on: leases and retries run out. Waits by default; a store on a test
   * clock advances it instead.
   *
   * @param duration how long
   */
  protected void elapse(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting " + duration, e);
    }
  }

  /**
   * The time on the store's clock, which stamps the messages' {@code created_at}: cleanup's cutoffs
   * are taken from it. The system clock by default.
   *
   * @return now
   */
  protected Instant now() {
    return Instant.now();
  }

  /**
   * A fresh aggregate id, unique in the JVM.
   *
   * @return the id
   */
  protected static String nextAggregateId() {
    return Long.toString(IDS.getAndIncrement());
  }

  /**
   * Writes {@code events} events on each of {@code aggregates} new aggregates in one transaction:
   * the first of type {@value #FIRST_EVENT_TYPE}, the others {@value #NEXT_EVENT_TYPE}.
   *
   * @param aggregates how many aggregates
   * @param events how many events each
   * @return the aggregate ids
   */
  protected List<String> write(int aggregates, int events) {
    List<String> ids = new ArrayList<>();
    List<NewMessage> messages = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      String id = nextAggregateId();
      messages.add(new NewMessage(AGGREGATE_TYPE, id, FIRST_EVENT_TYPE, "placed", Map.of()));
      for (int e = 1; e < events; e++) {
        messages.add(new NewMessage(AGGREGATE_TYPE, id, NEXT_EVENT_TYPE, "event " + e, Map.of()));
      }
      ids.add(id);
    }
    commit(messages);
    return ids;
  }

  /**
   * Writes one more event on an aggregate, in a transaction of its own.
   *
   * @param aggregateId the aggregate id
   * @param text what the event says
   */
  protected void append(String aggregateId, String text) {
    commit(List.of(new NewMessage(AGGREGATE_TYPE, aggregateId, NEXT_EVENT_TYPE, text, Map.of())));
  }

  /**
   * The head of an aggregate of type {@value #AGGREGATE_TYPE}.
   *
   * @param aggregateId the aggregate id
   * @return the head
   * @throws AssertionError when there is none
   */
  protected StoredHead head(String aggregateId) {
    return heads().stream()
        .filter(
            h -> h.aggregateType().equals(AGGREGATE_TYPE) && h.aggregateId().equals(aggregateId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no head for " + AGGREGATE_TYPE + '/' + aggregateId));
  }

  /**
   * Claims new heads with the default {@link #LEASE}.
   *
   * @param instance the claiming processor
   * @param limit at most this many messages
   * @return the leased heads
   */
  protected List<LeasedHead> claim(String instance, int limit) {
    return claim(instance, limit, LEASE);
  }

  /**
   * Claims new heads.
   *
   * @param instance the claiming processor
   * @param limit at most this many messages
   * @param lease the lease
   * @return the leased heads
   */
  protected List<LeasedHead> claim(String instance, int limit, Duration lease) {
    return store().claim(new ClaimRequest(instance, limit, lease, true));
  }

  /**
   * Claims until something is claimed, for a head that is due now on the store's clock (the
   * database's may lag a little behind the test's).
   *
   * @param instance the claiming processor
   * @return the leased heads, never empty
   */
  protected List<LeasedHead> claimOnceDue(String instance) {
    List<LeasedHead> claimed = new ArrayList<>();
    await().atMost(DUE_WITHIN).until(() -> claimed.addAll(claim(instance, 10)));
    return claimed;
  }

  /**
   * What a record asks to read on: only the heads it keeps leased, no new ones.
   *
   * @param instance the holder
   * @return the request
   */
  protected static ClaimRequest readOn(String instance) {
    return new ClaimRequest(instance, 100, LEASE, false);
  }

  /**
   * All messages of the heads, head after head.
   *
   * @param heads leased heads
   * @return their messages
   */
  protected static List<OutboxMessage> messages(List<LeasedHead> heads) {
    return heads.stream().flatMap(head -> head.messages().stream()).toList();
  }

  /**
   * The head of an aggregate among leased heads.
   *
   * @param heads leased heads
   * @param aggregateId the aggregate id
   * @return its head
   */
  protected static LeasedHead headOf(List<LeasedHead> heads, String aggregateId) {
    return heads.stream()
        .filter(head -> head.lease().aggregateId().equals(aggregateId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no leased head for " + aggregateId));
  }

  /**
   * The outcome of a head whose messages were all published.
   *
   * @param head a leased head
   * @return delivered up to its last message
   */
  protected static HeadOutcome delivered(LeasedHead head) {
    List<OutboxMessage> messages = head.messages();
    return new HeadOutcome.Delivered(head.lease(), messages.get(messages.size() - 1).seq());
  }

  /**
   * The outcomes of heads whose messages were all published.
   *
   * @param heads leased heads
   * @return delivered up to their last messages
   */
  protected static List<HeadOutcome> delivered(List<LeasedHead> heads) {
    return heads.stream().map(OutboxStoreFixture::delivered).toList();
  }

  /**
   * The outcome of a head whose message the broker rejected for good, now.
   *
   * @param head a leased head
   * @param message its message (the first not delivered)
   * @param attempts the attempts counted
   * @param hold whether its aggregate waits at it
   * @return dead-lettered with the error {@code rejected}
   */
  protected static HeadOutcome deadLettered(
      LeasedHead head, OutboxMessage message, int attempts, boolean hold) {
    return new HeadOutcome.DeadLettered(
        head.lease(),
        message.seq() - 1,
        message.id(),
        message.seq(),
        attempts,
        "rejected",
        Instant.now(),
        hold);
  }
}
