package dev.outbox.hibernate;

import dev.outbox.DeliveryMode;
import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.internal.OutboxContext;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * Entry points that connect the outbox engine to a Hibernate {@link EntityManagerFactory} the
 * outbox is integrated with.
 */
public final class HibernateOutbox {

  private HibernateOutbox() {}

  /**
   * The outbox store on the database of a persistence unit, through its connection provider: one
   * per persistence unit, whatever the number of calls.
   *
   * @param emf an entity manager factory (or session factory) built with the outbox on the
   *     classpath
   * @return the store, using the table names the factory was built with
   * @throws OutboxException when the outbox is disabled for that factory or it uses multi-tenancy
   */
  public static OutboxStore store(EntityManagerFactory emf) {
    SessionFactoryImplementor sessionFactory = emf.unwrap(SessionFactoryImplementor.class);
    OutboxContext context = context(sessionFactory);
    if (sessionFactory.getServiceRegistry().getService(ConnectionProvider.class) == null) {
      throw new OutboxException(
          "The outbox store needs the persistence unit's ConnectionProvider; multi-tenant"
              + " persistence units are not supported");
    }
    return context.jdbc().store();
  }

  /**
   * The options the persistence unit was built with.
   *
   * @param emf an entity manager factory built with the outbox on the classpath
   * @return its options
   */
  public static OutboxOptions options(EntityManagerFactory emf) {
    return context(emf.unwrap(SessionFactoryImplementor.class)).options();
  }

  /**
   * The outbox of a persistence unit built with {@link DeliveryMode#CDC}: no processor and no
   * publisher (Debezium reads the table from the database's log); {@link Outbox#start()} runs the
   * cleanup by age, {@link Outbox#health()} and the dead letters work as usual.
   *
   * @param emf an entity manager factory built with the outbox on the classpath and options in CDC
   *     mode
   * @return the outbox, not started
   * @throws OutboxException when the persistence unit's options are not in CDC mode
   */
  public static Outbox create(EntityManagerFactory emf) {
    OutboxOptions options = options(emf);
    if (options.deliveryMode() != DeliveryMode.CDC) {
      throw new OutboxException(
          "An outbox without an EventPublisher needs deliveryMode CDC, but the persistence unit"
              + " was built with "
              + options.deliveryMode()
              + ": pass the broker's publisher to HibernateOutbox.create(emf, publisher), or set"
              + " deliveryMode(DeliveryMode.CDC) when Debezium delivers");
    }
    return context(emf.unwrap(SessionFactoryImplementor.class)).jdbc().outbox();
  }

  /**
   * The outbox of a persistence unit with the options it was built with: the engine on the JDBC
   * store, woken after every commit in this JVM that wrote outbox rows. Call {@link Outbox#start()}
   * to start delivering.
   *
   * @param emf an entity manager factory built with the outbox on the classpath
   * @param publisher the broker adapter; closed when the outbox closes
   * @return the outbox, not started
   */
  public static Outbox create(EntityManagerFactory emf, EventPublisher publisher) {
    return create(emf, publisher, options(emf), Clock.systemUTC());
  }

  /**
   * The same with engine options of its own (poll interval, batch size, retries, ...). The table
   * names must be those the persistence unit was built with.
   *
   * @param emf an entity manager factory built with the outbox on the classpath
   * @param publisher the broker adapter; closed when the outbox closes
   * @param options the engine's options
   * @return the outbox, not started
   */
  public static Outbox create(
      EntityManagerFactory emf, EventPublisher publisher, OutboxOptions options) {
    return create(emf, publisher, options, Clock.systemUTC());
  }

  /**
   * The same with a clock, for tests.
   *
   * @param emf an entity manager factory built with the outbox on the classpath
   * @param publisher the broker adapter; closed when the outbox closes
   * @param options the engine's options
   * @param clock the engine's clock
   * @return the outbox, not started
   */
  public static Outbox create(
      EntityManagerFactory emf, EventPublisher publisher, OutboxOptions options, Clock clock) {
    OutboxContext context = context(emf.unwrap(SessionFactoryImplementor.class));
    OutboxOptions unit = context.options();
    if (!unit.outboxTable().equals(options.outboxTable())
        || !unit.deadLetterTable().equals(options.deadLetterTable())) {
      throw new OutboxException(
          "The outbox options name the tables "
              + options.outboxTable()
              + "/"
              + options.deadLetterTable()
              + " but the persistence unit was built with "
              + unit.outboxTable()
              + "/"
              + unit.deadLetterTable()
              + ": pass the same OutboxOptions as the setting "
              + OutboxSettings.OPTIONS);
    }
    if (unit.deliveryMode() != options.deliveryMode()) {
      throw new OutboxException(
          "The outbox options say deliveryMode "
              + options.deliveryMode()
              + " but the persistence unit was built with "
              + unit.deliveryMode()
              + ": pass the same OutboxOptions as the setting "
              + OutboxSettings.OPTIONS);
    }
    EventPublisher traced =
        options.deliveryMode() == DeliveryMode.CDC
            ? publisher
            : context.jdbc().withPublishSpans(publisher);
    return Outbox.create(options, store(emf), traced, clock);
  }

  /**
   * Sends an event that no managed aggregate registers ("send {@code PaymentRequested} for payment
   * 42"), in the entity manager's open transaction. It is checked and serialized now, and written
   * at the next flush with the events the aggregates registered, under the same head locks, with a
   * gap-free {@code seq}: events of one aggregate are written in the order they were sent or
   * registered in this transaction. A rollback takes it back; after the commit it goes to the
   * processor of this JVM like a harvested event.
   *
   * <pre>{@code
   * em.getTransaction().begin();
   * em.persist(payment);
   * HibernateOutbox.send(em, "Payment", paymentId, new PaymentRequested(orderId, amount));
   * em.getTransaction().commit();
   * }</pre>
   *
   * @param entityManager an entity manager (or Hibernate session) of a persistence unit with the
   *     outbox, in a transaction
   * @param aggregateType the aggregate type (routing: topic, subject, ...), non-blank, at most 255
   *     characters
   * @param aggregateId the aggregate id (ordering, partitioning), non-blank, at most 255 characters
   * @param event the event
   * @throws OutboxException naming what is wrong (no transaction, a blank name, an event the
   *     serializer cannot handle); nothing is sent
   */
  public static void send(
      EntityManager entityManager, String aggregateType, String aggregateId, DomainEvent event) {
    SessionImplementor session = entityManager.unwrap(SessionImplementor.class);
    context(session.getFactory()).send(session, aggregateType, aggregateId, event);
  }

  static OutboxContext context(SessionFactoryImplementor sessionFactory) {
    OutboxContext context = OutboxContext.of(sessionFactory);
    if (context == null) {
      throw new OutboxException(
          "The outbox is not integrated with this persistence unit: is outbox-hibernate on its"
              + " classpath, and is "
              + OutboxSettings.ENABLED
              + " not false?");
    }
    return context;
  }
}
