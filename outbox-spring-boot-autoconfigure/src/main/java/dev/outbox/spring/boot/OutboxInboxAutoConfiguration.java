package dev.outbox.spring.boot;

import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxListener;
import dev.outbox.inbox.InboxOptions;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The inbox ({@code outbox-inbox}) on the application's {@link DataSource}, when {@code
 * outbox.inbox.source} names the consumer: an {@link Inbox} whose cleanup runs while the
 * application does, and a {@link TransactionalInbox} that applies messages in the current Spring
 * transaction, and the read-only {@code inbox} Actuator endpoint ({@link InboxEndpoint}) when
 * exposed. The other {@code outbox.inbox.*} keys are {@link InboxOptions#keys(String)}'s, in the
 * grammar of every outbox key; every {@link InboxListener} bean (the Micrometer counters among
 * them) is told of each outcome.
 */
@AutoConfiguration(
    after = OutboxMetricsAutoConfiguration.class,
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({Inbox.class, DataSourceUtils.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(name = "outbox.inbox.source")
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxInboxAutoConfiguration {

  @Bean(initMethod = "start", destroyMethod = "close")
  @ConditionalOnMissingBean
  Inbox outboxInbox(
      DataSource dataSource,
      ConfigurableEnvironment environment,
      ObjectProvider<InboxListener> listeners) {
    InboxOptions.Builder options;
    try {
      options =
          InboxOptions.fromMap(OutboxProperties.of(environment).all(), "outbox.inbox").toBuilder();
    } catch (IllegalArgumentException e) {
      throw new OutboxConfigurationException(
          e.getMessage(),
          "Fix the outbox.inbox.* properties: "
              + String.join(", ", InboxOptions.keys("outbox.inbox")),
          e);
    }
    listeners.orderedStream().forEach(options::listener);
    return Inbox.create(dataSource, options.build());
  }

  @Bean
  @ConditionalOnMissingBean
  TransactionalInbox transactionalInbox(Inbox inbox, DataSource dataSource) {
    return new TransactionalInbox(inbox, dataSource);
  }

  /** The {@code inbox} Actuator endpoint, when Actuator is there and the endpoint exposed. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class InboxEndpointConfiguration {

    @Bean
    @ConditionalOnAvailableEndpoint(InboxEndpoint.class)
    InboxEndpoint inboxEndpoint(Inbox inbox) {
      return new InboxEndpoint(inbox);
    }
  }
}
