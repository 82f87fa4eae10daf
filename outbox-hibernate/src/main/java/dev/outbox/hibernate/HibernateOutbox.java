package dev.outbox.hibernate;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.internal.JdbcOutboxStore;
import dev.outbox.hibernate.internal.OutboxContext;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * Entry points that connect the outbox engine to a Hibernate {@link EntityManagerFactory} the
 * outbox is integrated with.
 */
public final class HibernateOutbox {

  private HibernateOutbox() {}

  /**
   * The outbox store on the database of a persistence unit, through its connection provider.
   *
   * @param emf an entity manager factory (or session factory) built with the outbox on the
   *     classpath
   * @return the store, using the table names the factory was built with
   * @throws OutboxException when the outbox is disabled for that factory or it uses multi-tenancy
   */
  public static OutboxStore store(EntityManagerFactory emf) {
    SessionFactoryImplementor sessionFactory = emf.unwrap(SessionFactoryImplementor.class);
    OutboxContext context = context(sessionFactory);
    ConnectionProvider connections =
        sessionFactory.getServiceRegistry().getService(ConnectionProvider.class);
    if (connections == null) {
      throw new OutboxException(
          "The outbox store needs the persistence unit's ConnectionProvider; multi-tenant"
              + " persistence units are not supported");
    }
    return new JdbcOutboxStore(connections, context.database(), context.options());
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
