package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;

/**
 * With Spring Data JDBC on the classpath: the domain events of aggregates saved through its
 * repositories go to the outbox in the transaction of the save: those of a {@code @DomainEvents}
 * method ({@code AbstractAggregateRoot}) that implement {@link DomainEvent}. In a JPA application,
 * the classes of the persistence unit are left to Hibernate's flush, so each event is written once.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.data.relational.core.mapping.event.AfterSaveCallback",
      "org.springframework.data.domain.DomainEvents"
    })
@ConditionalOnBean(OutboxBackend.class)
public class OutboxSpringDataJdbcAutoConfiguration {

  @Bean
  SpringDataJdbcDomainEvents outboxSpringDataJdbcDomainEvents(
      OutboxBackend backend, ObjectProvider<RelationalMappingContext> mappingContext) {
    return new SpringDataJdbcDomainEvents(backend, mappingContext);
  }
}
