package dev.outbox.spring.boot;

import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * With {@code outbox-hibernate} and Spring Boot's Hibernate module on the classpath: hands the
 * bound {@link OutboxOptions} to the persistence unit, so that its flush listener harvests the
 * events of every aggregate; with {@code outbox.enabled=false}, tells Hibernate to harvest nothing.
 * Unused when the application has no JPA.
 */
@AutoConfiguration(
    beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass(
    name = {
      "dev.outbox.hibernate.OutboxSettings",
      "org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer"
    })
public class OutboxHibernateAutoConfiguration {

  @Bean
  @ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
  HibernatePropertiesCustomizer outboxHibernateProperties(OutboxOptions options) {
    return properties -> properties.put(OutboxSettings.OPTIONS, options);
  }

  @Bean
  @ConditionalOnBooleanProperty(name = "outbox.enabled", havingValue = false)
  HibernatePropertiesCustomizer outboxOff() {
    return properties -> properties.put(OutboxSettings.ENABLED, "false");
  }
}
