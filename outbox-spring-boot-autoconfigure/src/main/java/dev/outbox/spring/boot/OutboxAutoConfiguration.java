package dev.outbox.spring.boot;

import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.EventSerializer;
import dev.outbox.spi.HeaderProvider;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The outbox in a Spring Boot application: options from {@code outbox.*} (the outbox's own keys and
 * binder, see the README's configuration reference); the broker's publisher ({@code outbox.broker},
 * or the one adapter on the classpath, or your {@link EventPublisher} bean); the {@link Outbox},
 * started and closed with the context; its {@link OutboxStore}, {@link DeadLetterService} and
 * {@link OutboxEvents}. {@code outbox.enabled=false} turns the outbox off: no rows written, nothing
 * published.
 *
 * <p>On one of two backends:
 *
 * <ul>
 *   <li>with an {@link EntityManagerFactory} (Spring Data JPA on Hibernate, {@code
 *       outbox-hibernate} on the classpath): the options are handed to Hibernate ({@link
 *       OutboxHibernateAutoConfiguration}), whose flush listener harvests the events of every
 *       aggregate; {@link OutboxEvents} queues in the transaction's session;
 *   <li>with a {@link DataSource} and no {@link EntityManagerFactory}: a {@link JdbcOutbox} bean on
 *       the data source, which sees the commits of Spring's transactions ({@link
 *       SpringTransactionObserver}); {@link OutboxEvents} writes on the transaction's connection.
 * </ul>
 *
 * <p>Beans of {@link OutboxListener}, {@link HeaderProvider} and {@link EventSerializer} are added
 * to the options. Define an {@link OutboxOptions} bean to replace the binding altogether.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration"
    })
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  OutboxOptions outboxOptions(
      ConfigurableEnvironment environment,
      ObjectProvider<OutboxListener> listeners,
      ObjectProvider<HeaderProvider> headerProviders,
      ObjectProvider<EventSerializer> serializer) {
    OutboxProperties properties = OutboxProperties.of(environment);
    properties.checkKeys();
    try {
      OutboxOptions.Builder builder =
          OutboxOptions.builder().bind(properties.forBinders(), "outbox");
      listeners.orderedStream().forEach(builder::listener);
      headerProviders.orderedStream().forEach(builder::headerProvider);
      serializer.ifAvailable(builder::serializer);
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new OutboxConfigurationException(
          "Invalid outbox property: " + e.getMessage(),
          "Fix the property: the outbox's keys are kebab-case under outbox. (outbox.poll-interval,"
              + " outbox.batch-size, ...), durations like 500ms, 5s, 2m or PT5S; the README's"
              + " configuration reference lists them all.",
          e);
    }
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(OutboxBackend.class)
  OutboxStore outboxStore(OutboxBackend backend) {
    return backend.store();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnBean(OutboxBackend.class)
  Outbox outbox(
      OutboxBackend backend,
      OutboxOptions options,
      ObjectProvider<EventPublisher> publisher,
      ConfigurableEnvironment environment,
      ConfigurableListableBeanFactory beanFactory) {
    if (options.deliveryMode() == DeliveryMode.CDC) {
      return backend.connectorDelivers();
    }
    EventPublisher bean = publisher.getIfAvailable();
    if (bean != null) {
      return backend.outbox(bean, options);
    }
    EventPublisher created =
        PublisherSelection.publisher(
            OutboxProperties.of(environment), beanFactory.getBeanClassLoader());
    try {
      return backend.outbox(created, options);
    } catch (RuntimeException | Error e) {
      created.close(); // ours, and no outbox will close it
      throw e;
    }
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(Outbox.class)
  DeadLetterService outboxDeadLetters(Outbox outbox) {
    return outbox.deadLetters();
  }

  @Bean
  @ConditionalOnBean(Outbox.class)
  OutboxLifecycle outboxLifecycle(Outbox outbox) {
    return new OutboxLifecycle(outbox);
  }

  /** JPA on Hibernate: the persistence unit's outbox. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {
        "dev.outbox.hibernate.HibernateOutbox",
        "jakarta.persistence.EntityManagerFactory",
        "org.springframework.orm.jpa.SharedEntityManagerCreator"
      })
  @ConditionalOnBean(EntityManagerFactory.class)
  static class Jpa {

    @Bean
    OutboxBackend outboxJpaBackend(EntityManagerFactory entityManagerFactory) {
      return new JpaOutboxBackend(entityManagerFactory);
    }
  }

  /** A data source and no JPA: a {@link JdbcOutbox} on Spring's transactions. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DataSourceUtils")
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnMissingBean(type = "jakarta.persistence.EntityManagerFactory")
  static class Jdbc {

    @Bean
    @ConditionalOnMissingBean
    JdbcOutbox jdbcOutbox(DataSource dataSource, OutboxOptions options) {
      return JdbcOutbox.builder(dataSource)
          .options(options)
          .transactionObserver(new SpringTransactionObserver(dataSource))
          .build();
    }

    @Bean
    OutboxBackend outboxJdbcBackend(JdbcOutbox jdbcOutbox, DataSource dataSource) {
      return new JdbcOutboxBackend(jdbcOutbox, dataSource);
    }
  }
}
