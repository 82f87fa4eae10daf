package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
   * Registers a callback run after each commit that wrote outbox rows (the processor's wake-up).
   *
   * @param listener run on the committing thread; it must be quick and must not throw
   * @return a handle that removes the callback again
   */
  public AutoCloseable onCommit(Runnable listener) {
    commitListeners.add(listener);
    return () -> commitListeners.remove(listener);
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
