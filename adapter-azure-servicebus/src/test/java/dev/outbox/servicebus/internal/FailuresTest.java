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
  void aSendTheSdkGaveUpOnAtItsTryTimeoutMayHaveLandedAndSaysSo() {
    UUID id = UUID.randomUUID();
    PublishException timedOut =
        Failures.sendFailed(
            id,
            "orders",
            new ServiceBusException(
                new java.util.concurrent.TimeoutException("Did not observe any item"),
                ServiceBusErrorSource.SEND));
    PublishException refused =
        Failures.sendFailed(id, "orders", serviceBus(AmqpErrorCondition.UNAUTHORIZED_ACCESS));

    assertThat(timedOut.isRetryable()).isTrue();
    assertThat(timedOut)
        .hasMessageContaining("send failed")
        .hasMessageContaining("may or may not have the message");
    assertThat(refused.isRetryable()).isFalse();
    assertThat(refused).hasMessageNotContaining("may or may not");
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
