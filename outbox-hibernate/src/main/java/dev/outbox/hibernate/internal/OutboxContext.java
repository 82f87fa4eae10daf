package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.SessionFactory;

/**
 * What the outbox knows about one session factory: its options and its {@link JdbcOutbox} (the one
 * store, writer and commit hand-over of the persistence unit). Created by the integrator, one per
 * session factory.
 *
 * @param options the options the session factory was built with
 * @param jdbc the outbox on the session factory's connections
 */
public record OutboxContext(OutboxOptions options, JdbcOutbox jdbc) {

  private static final Map<SessionFactory, OutboxContext> CONTEXTS = new ConcurrentHashMap<>();

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
}
