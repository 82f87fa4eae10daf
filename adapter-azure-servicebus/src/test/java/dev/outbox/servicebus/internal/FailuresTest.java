package dev.outbox.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import dev.outbox.PublishException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FailuresTest {

  private static ServiceBusException serviceBus(AmqpErrorCondition condition) {
    return new ServiceBusException(
        new AmqpException(false, condition, "broker said no", null), ServiceBusErrorSource.SEND);
  }

  @Test
  void quotaSizeAndAuthorizationErrorsAreNotRetryable() {
    assertThat(Failures.isPermanent(serviceBus(AmqpErrorCondition.RESOURCE_LIMIT_EXCEEDED)))
        .isTrue();
    assertThat(Failures.isPermanent(serviceBus(AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED)))
        .isTrue();
    assertThat(Failures.isPermanent(serviceBus(AmqpErrorCondition.UNAUTHORIZED_ACCESS))).isTrue();
  }

  @Test
  void missingEntityBusyServiceAndAnyOtherRuntimeExceptionAreRetryable() {
    assertThat(Failures.isPermanent(serviceBus(AmqpErrorCondition.NOT_FOUND))).isFalse();
    assertThat(Failures.isPermanent(serviceBus(AmqpErrorCondition.SERVER_BUSY_ERROR))).isFalse();
    assertThat(Failures.isPermanent(new IllegalStateException("Timeout on blocking read")))
        .isFalse();
  }

  @Test
  void theFailureNamesMessageEntityAndCause() {
    UUID id = UUID.randomUUID();
    PublishException failure =
        Failures.of(id, "orders", "send", new IllegalStateException("connection refused"));

    assertThat(failure.isRetryable()).isTrue();
    assertThat(failure.messageId()).isEqualTo(id);
    assertThat(failure.destination()).isEqualTo("orders");
    assertThat(failure)
        .hasMessageContaining("send failed")
        .hasMessageContaining("connection refused")
        .hasMessageContaining(id.toString());
  }
}
