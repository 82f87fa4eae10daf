package dev.outbox.spring.boot;

import dev.outbox.Outbox;
import dev.outbox.spi.OutboxStore;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * The {@code outbox} Actuator endpoint, when exposed ({@code
 * management.endpoints.web.exposure.include=outbox}); its replay and purge need {@code
 * management.endpoint.outbox.access=unrestricted}, without which they answer 405 Method Not
 * Allowed. Over HTTP, bad input is answered 400 with a body naming the parameter ({@link
 * OutboxWebEndpointExtension}).
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Outbox.class)
@ConditionalOnAvailableEndpoint(OutboxEndpoint.class)
public class OutboxEndpointAutoConfiguration {

  @Bean
  OutboxEndpoint outboxEndpoint(Outbox outbox, OutboxStore store) {
    return new OutboxEndpoint(outbox, store);
  }

  @Bean
  @ConditionalOnAvailableEndpoint(endpoint = OutboxEndpoint.class, exposure = EndpointExposure.WEB)
  OutboxWebEndpointExtension outboxWebEndpointExtension(OutboxEndpoint endpoint) {
    return new OutboxWebEndpointExtension(endpoint);
  }
}
