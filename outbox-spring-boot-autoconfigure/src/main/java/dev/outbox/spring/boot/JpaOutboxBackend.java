package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.metamodel.ManagedType;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.orm.jpa.SharedEntityManagerCreator;

/**
 * The outbox of a JPA persistence unit on Hibernate: the flush harvests the aggregates' events, and
 * sends go through {@link HibernateOutbox#send} on the transaction's entity manager.
 */
final class JpaOutboxBackend implements OutboxBackend {

  private final EntityManagerFactory entityManagerFactory;
  private final EntityManager transactional;
  private volatile Set<Class<?>> entityTypes;

  JpaOutboxBackend(EntityManagerFactory entityManagerFactory) {
    this.entityManagerFactory = entityManagerFactory;
    this.transactional = SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory);
  }

  @Override
  public OutboxStore store() {
    return HibernateOutbox.store(entityManagerFactory);
  }

  @Override
  public Outbox outbox(EventPublisher publisher, OutboxOptions options) {
    return HibernateOutbox.create(entityManagerFactory, publisher, options);
  }

  @Override
  public Outbox connectorDelivers() {
    return HibernateOutbox.create(entityManagerFactory);
  }

  @Override
  public void send(String aggregateType, String aggregateId, List<? extends DomainEvent> events) {
    OutboxBackend.requireTransaction(events.size());
    for (DomainEvent event : events) {
      HibernateOutbox.send(transactional, aggregateType, aggregateId, event);
    }
  }

  @Override
  public boolean harvests(Class<?> entityType) {
    Set<Class<?>> managed = entityTypes;
    if (managed == null) {
      managed = new HashSet<>();
      for (ManagedType<?> type : entityManagerFactory.getMetamodel().getManagedTypes()) {
        managed.add(type.getJavaType());
      }
      entityTypes = managed;
    }
    for (Class<?> type = entityType; type != null; type = type.getSuperclass()) {
      if (managed.contains(type)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "OutboxEvents[JPA on Hibernate]";
  }
}
