package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.domain.DomainEvents;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.relational.core.mapping.event.AfterSaveCallback;
import org.springframework.data.util.AnnotationDetectionMethodCallback;
import org.springframework.util.ReflectionUtils;

/**
 * Writes the domain events of aggregates saved through Spring Data JDBC to the outbox, in the
 * transaction of the save, right after the aggregate's rows: the events its {@link DomainEvents}
 * method returns (Spring Data's {@code AbstractAggregateRoot}) that implement {@link DomainEvent}.
 * The repository still publishes them in-process afterwards and clears them, as always; those that
 * do not implement {@link DomainEvent} stay in-process only.
 *
 * <p>Aggregate type: the class's simple name; aggregate id: its {@code @Id} after the save. Classes
 * the JPA persistence unit manages are left to Hibernate's flush, so that no event is written
 * twice. ({@code dev.outbox.AggregateRoot} is for Hibernate: Spring Data JDBC would map its pending
 * events as a relation of their own.)
 */
final class SpringDataJdbcDomainEvents implements AfterSaveCallback<Object> {

  private final OutboxBackend backend;
  private final ObjectProvider<RelationalMappingContext> mappingContext;

  private final ClassValue<Optional<Method>> domainEventsMethods =
      new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
          AnnotationDetectionMethodCallback<DomainEvents> detector =
              new AnnotationDetectionMethodCallback<>(DomainEvents.class);
          ReflectionUtils.doWithMethods(type, detector);
          Method method = detector.getMethod();
          if (method != null) {
            ReflectionUtils.makeAccessible(method);
          }
          return Optional.ofNullable(method);
        }
      };

  SpringDataJdbcDomainEvents(
      OutboxBackend backend, ObjectProvider<RelationalMappingContext> mappingContext) {
    this.backend = backend;
    this.mappingContext = mappingContext;
  }

  @Override
  public Object onAfterSave(Object aggregate) {
    if (backend.harvests(aggregate.getClass())) {
      return aggregate;
    }
    List<DomainEvent> events = events(aggregate);
    if (!events.isEmpty()) {
      backend.send(aggregateType(aggregate), aggregateId(aggregate), events);
    }
    return aggregate;
  }

  /** The outbox's events of the aggregate, in order. */
  private List<DomainEvent> events(Object aggregate) {
    List<DomainEvent> events = new ArrayList<>();
    Optional<Method> method = domainEventsMethods.get(aggregate.getClass());
    if (method.isPresent()) {
      Object published = ReflectionUtils.invokeMethod(method.get(), aggregate);
      Collection<?> all =
          published instanceof Collection<?> collection
              ? collection
              : published == null ? List.of() : List.of(published);
      for (Object event : all) {
        if (event instanceof DomainEvent domainEvent) {
          events.add(domainEvent);
        }
      }
    }
    return events;
  }

  private static String aggregateType(Object aggregate) {
    return aggregate.getClass().getSimpleName();
  }

  private String aggregateId(Object aggregate) {
    Object id =
        mappingContext
            .getObject()
            .getRequiredPersistentEntity(aggregate.getClass())
            .getIdentifierAccessor(aggregate)
            .getIdentifier();
    if (id == null) {
      throw new OutboxException(
          "The aggregate "
              + aggregate.getClass().getName()
              + " has domain events but no @Id after its save through Spring Data JDBC: give it an"
              + " id. Nothing was sent.");
    }
    return String.valueOf(id);
  }
}
