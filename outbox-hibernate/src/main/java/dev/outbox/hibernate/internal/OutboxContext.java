package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.LeasedHead;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.hibernate.SessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the outbox knows about one session factory: its options, its database, and who wants to hear
 * that a transaction committed outbox rows. Created by the integrator, one per session factory.
 */
public final class OutboxContext {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxContext.class);
  private static final Map<SessionFactory, OutboxContext> CONTEXTS = new ConcurrentHashMap<>();

  private final OutboxOptions options;
  private final Database database;
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<LeaseReceiver> leaseReceiver = new AtomicReference<>();

  /**
   * The running processor that rows are written leased to.
   *
   * @param instanceId the processor's instance id
   * @param lease how long a lease written at flush time lasts
   * @param sink takes the committed leased heads and the end of their lease on the JVM's clock
   */
  public record LeaseReceiver(
      String instanceId, Duration lease, BiConsumer<List<LeasedHead>, Instant> sink) {}

  OutboxContext(OutboxOptions options, Database database) {
    this.options = options;
    this.database = database;
  }

  /**
   * The context of a session factory the outbox is integrated with.
   *
   * @param sessionFactory the session factory (or an {@code EntityManagerFactory} unwrapped to it)
   * @return the context, or {@code null} when the outbox is not integrated with it
   */
  public static OutboxContext of(SessionFactory sessionFactory) {
    return CONTEXTS.get(sessionFactory);
  }

  static boolean register(SessionFactory sessionFactory, OutboxContext context) {
    return CONTEXTS.putIfAbsent(sessionFactory, context) == null;
  }

  static void unregister(SessionFactory sessionFactory) {
    CONTEXTS.remove(sessionFactory);
  }

  /**
   * The options the session factory was built with.
   *
   * @return the options
   */
  public OutboxOptions options() {
    return options;
  }

  /**
   * The database of the session factory.
   *
   * @return the database
   */
  public Database database() {
    return database;
  }

  /**
   * Registers a callback run after each commit that wrote outbox rows going the claimed way (the
   * processor's wake-up to claim; rows written leased go straight to the lease receiver).
   *
   * @param listener run on the committing thread; it must be quick and must not throw
   * @return a handle that removes the callback again
   */
  public AutoCloseable onCommit(Runnable listener) {
    commitListeners.add(listener);
    return () -> commitListeners.remove(listener);
  }

  /**
   * Makes a running processor the one that rows of this session factory are written leased to,
   * unless another one already is.
   *
   * @param receiver the processor
   * @return a handle that removes it again; does nothing when another receiver was kept
   */
  public AutoCloseable receiveLeases(LeaseReceiver receiver) {
    if (!leaseReceiver.compareAndSet(null, receiver)) {
      return () -> {};
    }
    return () -> leaseReceiver.compareAndSet(receiver, null);
  }

  LeaseReceiver leaseReceiver() {
    return leaseReceiver.get();
  }

  void committed() {
    for (Runnable listener : commitListeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        LOG.warn("An outbox commit listener failed; the processor will poll instead", e);
      }
    }
  }
}
