package dev.outbox.spring.boot;

import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.EventSerializer;
import dev.outbox.spi.HeaderProvider;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The outbox in a Spring Boot application with Spring Data JPA on Hibernate: options from {@code
 * outbox.*} (the outbox's own keys and binder, see the README's configuration reference) handed to
 * Hibernate, so the flush listener harvests events from every repository and {@code @Transactional}
 * service; the broker's publisher ({@code outbox.broker}, or the one adapter on the classpath, or
 * your {@link EventPublisher} bean); the {@link Outbox}, started and closed with the context; its
 * {@link OutboxStore} and {@link DeadLetterService}. {@code outbox.enabled=false} turns the outbox
 * off: no rows written, nothing published.
 *
 * <p>Beans of {@link OutboxListener}, {@link HeaderProvider} and {@link EventSerializer} are added
 * to the options. Define an {@link OutboxOptions} bean to replace the binding altogether.
 */
@AutoConfiguration(before = HibernateJpaAutoConfiguration.class)
@ConditionalOnClass({HibernateOutbox.class, HibernatePropertiesCustomizer.class})
public class OutboxAutoConfiguration {

  /** The outbox, on. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
  static class Enabled {

    @Bean
    @ConditionalOnMissingBean
    OutboxOptions outboxOptions(
        ConfigurableEnvironment environment,
        ObjectProvider<OutboxListener> listeners,
        ObjectProvider<HeaderProvider> headerProviders,
        ObjectProvider<EventSerializer> serializer) {
      OutboxProperties properties = OutboxProperties.of(environment);
      properties.checkOwnKeys();
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
    HibernatePropertiesCustomizer outboxHibernateProperties(OutboxOptions options) {
      return properties -> properties.put(OutboxSettings.OPTIONS, options);
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxStore outboxStore(EntityManagerFactory entityManagerFactory) {
      return HibernateOutbox.store(entityManagerFactory);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Outbox outbox(
        EntityManagerFactory entityManagerFactory,
        OutboxOptions options,
        ObjectProvider<EventPublisher> publisher,
        ConfigurableEnvironment environment,
        ConfigurableListableBeanFactory beanFactory) {
      if (options.deliveryMode() == DeliveryMode.CDC) {
        return HibernateOutbox.create(entityManagerFactory);
      }
      EventPublisher bean = publisher.getIfAvailable();
      if (bean != null) {
        return HibernateOutbox.create(entityManagerFactory, bean, options);
      }
      EventPublisher created =
          PublisherSelection.publisher(
              OutboxProperties.of(environment), beanFactory.getBeanClassLoader());
      try {
        return HibernateOutbox.create(entityManagerFactory, created, options);
      } catch (RuntimeException | Error e) {
        created.close(); // ours, and no outbox will close it
        throw e;
      }
    }

    @Bean
    @ConditionalOnMissingBean
    DeadLetterService outboxDeadLetters(Outbox outbox) {
      return outbox.deadLetters();
    }

    @Bean
    OutboxLifecycle outboxLifecycle(Outbox outbox) {
      return new OutboxLifecycle(outbox);
    }
  }

  /** The outbox, off: Hibernate harvests nothing either. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(name = "outbox.enabled", havingValue = false)
  static class Disabled {

    @Bean
    HibernatePropertiesCustomizer outboxOff() {
      return properties -> properties.put(OutboxSettings.ENABLED, "false");
    }
  }
}
