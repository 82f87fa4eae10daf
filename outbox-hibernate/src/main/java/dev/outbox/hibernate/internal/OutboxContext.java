package dev.outbox.hibernate.internal;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * What the outbox knows about one session factory: its options and its {@link JdbcOutbox} (the one
 * store, writer and commit hand-over of the persistence unit). Created by the integrator, one per
 * session factory.
 *
 * @param options the options the session factory was built with
 * @param jdbc the outbox on the session factory's connections
 * @param sends the events sessions send themselves, until their flush
 */
public record OutboxContext(OutboxOptions options, JdbcOutbox jdbc, ExplicitSends sends) {

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

  /**
   * Queues an event sent by the application for the session's next flush.
   *
   * @param session the session, in a transaction
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @param event the event
   */
  public void send(
      SessionImplementor session, String aggregateType, String aggregateId, DomainEvent event) {
    sends.send(session, aggregateType, aggregateId, event);
  }

  static boolean register(SessionFactory sessionFactory, OutboxContext context) {
    return CONTEXTS.putIfAbsent(sessionFactory, context) == null;
  }

  static void unregister(SessionFactory sessionFactory) {
    CONTEXTS.remove(sessionFactory);
  }
}
