package dev.outbox.spring.boot;

import dev.outbox.Outbox;
import dev.outbox.spi.OptionsBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The {@code outbox} health indicator, with Spring Boot's health module on the classpath; {@code
 * outbox.health.max-lag} makes a backlog older than that DOWN ({@code
 * management.health.outbox.enabled=false} removes it).
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Outbox.class)
@ConditionalOnEnabledHealthIndicator("outbox")
public class OutboxHealthAutoConfiguration {

  @Bean
  OutboxHealthIndicator outboxHealthIndicator(Outbox outbox, ConfigurableEnvironment environment) {
    String maxLag = OutboxProperties.of(environment).get("health.max-lag");
    try {
      return new OutboxHealthIndicator(
          outbox,
          maxLag == null || maxLag.isBlank() ? null : OptionsBinder.duration(maxLag.strip()));
    } catch (IllegalArgumentException e) {
      throw new OutboxConfigurationException(
          "Invalid outbox property: outbox.health.max-lag: " + e.getMessage(),
          "Write a duration such as 30s, 5m or PT5M.",
          e);
    }
  }
}
