/**
 * Spring Boot auto-configuration of the outbox: {@link
 * dev.outbox.spring.boot.OutboxAutoConfiguration} binds {@code outbox.*} with the outbox's own
 * binder, runs the outbox on the JPA persistence unit (handing the options to Hibernate) or,
 * without JPA, on a {@link dev.outbox.jdbc.JdbcOutbox} over the {@code DataSource}; creates the
 * broker's publisher, the {@link dev.outbox.Outbox} as a lifecycle bean and {@link
 * dev.outbox.spring.boot.OutboxEvents} to send from {@code @Transactional} methods; writes the
 * domain events of Spring Data JDBC aggregates; and adds the Actuator health indicator, the
 * Micrometer meters and the {@code outbox} endpoint when the application has them.
 */
package dev.outbox.spring.boot;
