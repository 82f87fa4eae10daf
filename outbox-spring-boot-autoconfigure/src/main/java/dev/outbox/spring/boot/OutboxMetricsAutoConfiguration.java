package dev.outbox.spring.boot;

import dev.outbox.Outbox;
import dev.outbox.micrometer.InboxMetrics;
import dev.outbox.micrometer.OutboxMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The outbox's meters ({@code outbox-micrometer}) on the application's {@link MeterRegistry}:
 * counters and timers as an {@code OutboxListener}, gauges from the outbox's health. {@code
 * outbox.metrics.latency-histogram=true} publishes the delivery latency as a histogram. With
 * outbox-inbox on the class path, {@link InboxMetrics} counts what the inbox does.
 */
@AutoConfiguration(after = CompositeMeterRegistryAutoConfiguration.class)
@ConditionalOnClass({OutboxMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxMetricsAutoConfiguration {

  @Bean
  OutboxMetrics outboxMetrics(MeterRegistry registry, ConfigurableEnvironment environment) {
    String histogram = OutboxProperties.of(environment).get("metrics.latency-histogram");
    return OutboxMetrics.builder(registry)
        .latencyHistogram(histogram != null && Boolean.parseBoolean(histogram.strip()))
        .build();
  }

  /** The inbox's counters, when outbox-inbox is there too. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.outbox.inbox.Inbox")
  static class InboxMetricsConfiguration {

    @Bean
    InboxMetrics inboxMetrics(MeterRegistry registry) {
      return new InboxMetrics(registry);
    }
  }

  @Bean
  SmartInitializingSingleton outboxMetricsGauges(
      OutboxMetrics metrics, ObjectProvider<Outbox> outbox) {
    return () -> outbox.ifAvailable(metrics::watch);
  }
}
