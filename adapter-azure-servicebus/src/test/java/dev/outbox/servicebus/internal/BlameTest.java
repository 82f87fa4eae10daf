package dev.outbox.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpErrorContext;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BlameTest {

  private static final AmqpErrorContext CONTEXT = new AmqpErrorContext("ns.servicebus.local");

  /** What the SDK's sender reports: a ServiceBusException around the AmqpException. */
  private static ServiceBusException serviceBus(AmqpErrorCondition condition) {
    return new ServiceBusException(amqp(condition), ServiceBusErrorSource.SEND);
  }

  private static AmqpException amqp(AmqpErrorCondition condition) {
    return new AmqpException(false, condition, "broker said no", CONTEXT);
  }

  @Test
  void theCbsNodeRefusingTheTokenIsTheCredentialsFault() {
    // What the SDK makes of the $cbs node's 401 for a token signed with a wrong key.
    AmqpException refused =
        new AmqpException(
            false,
            AmqpErrorCondition.UNAUTHORIZED_ACCESS,
            "status-code: 401, status-description: InvalidSignature: The token has an invalid"
                + " signature.",
            CONTEXT);
    ServiceBusException wrapped = new ServiceBusException(refused, ServiceBusErrorSource.SEND);

    assertThat(wrapped.getReason()).isEqualTo(ServiceBusFailureReason.UNAUTHORIZED);
    assertThat(Blame.of(wrapped)).isEqualTo(Blame.CREDENTIALS);
    assertThat(Blame.of(refused)).isEqualTo(Blame.CREDENTIALS);
    assertThat(Blame.CREDENTIALS.isBrokerFault()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(
      value = AmqpErrorCondition.class,
      names = {
        "PROTON_IO",
        "CONNECTION_FORCED",
        "CONNECTION_FRAMING_ERROR",
        "LINK_DETACH_FORCED",
        "INTERNAL_ERROR",
        "SERVER_BUSY_ERROR",
        "TIMEOUT_ERROR",
        "RESOURCE_LIMIT_EXCEEDED"
      })
  void connectionServiceAndCapacityConditionsAreTheBrokersFault(AmqpErrorCondition condition) {
    assertThat(Blame.of(serviceBus(condition))).as("wrapped %s", condition).isEqualTo(Blame.BROKER);
    assertThat(Blame.of(amqp(condition))).as("bare %s", condition).isEqualTo(Blame.BROKER);
  }

  @Test
  void aConditionTheSdkHasNoReasonForIsDecidedByTheCondition() {
    ServiceBusException forced = serviceBus(AmqpErrorCondition.CONNECTION_FORCED);

    assertThat(forced.getReason()).isEqualTo(ServiceBusFailureReason.GENERAL_ERROR);
    assertThat(Blame.of(forced)).isEqualTo(Blame.BROKER);
  }

  @Test
  void communicationBusyAndTimeoutReasonsAreTheBrokersFault() {
    assertThat(serviceBus(AmqpErrorCondition.PROTON_IO).getReason())
        .isEqualTo(ServiceBusFailureReason.SERVICE_COMMUNICATION_ERROR);
    assertThat(serviceBus(AmqpErrorCondition.SERVER_BUSY_ERROR).getReason())
        .isEqualTo(ServiceBusFailureReason.SERVICE_BUSY);
    assertThat(serviceBus(AmqpErrorCondition.TIMEOUT_ERROR).getReason())
        .isEqualTo(ServiceBusFailureReason.SERVICE_TIMEOUT);
    assertThat(serviceBus(AmqpErrorCondition.RESOURCE_LIMIT_EXCEEDED).getReason())
        .isEqualTo(ServiceBusFailureReason.QUOTA_EXCEEDED);
  }

  @Test
  void aTransientAmqpExceptionWithoutConditionIsTheBrokersFault() {
    // What a send reports when the proxy in front of the broker cuts the connection under it.
    AmqpException linkClosed =
        new AmqpException(
            true,
            "Could not complete sends because link 'orders' for 'orders' is closed.",
            CONTEXT);

    assertThat(Blame.of(new ServiceBusException(linkClosed, ServiceBusErrorSource.SEND)))
        .isEqualTo(Blame.BROKER);
    assertThat(Blame.of(new AmqpException(true, "Connection closed.", CONTEXT)))
        .isEqualTo(Blame.BROKER);
    assertThat(Blame.of(new AmqpException(false, "something else", CONTEXT)))
        .isEqualTo(Blame.MESSAGE_RETRYABLE);
  }

  @Test
  void nothingGettingThroughInTimeIsTheBrokersFault() {
    ServiceBusException tryTimeout =
        new ServiceBusException(
            new IllegalStateException(
                "Retries exhausted: 0/0", new TimeoutException("Did not observe any item")),
            ServiceBusErrorSource.SEND);
    IllegalStateException blockTimeout =
        new IllegalStateException("Timeout on blocking read for 3000000000 NANOSECONDS");

    assertThat(Blame.of(tryTimeout)).isEqualTo(Blame.BROKER);
    assertThat(Blame.of(blockTimeout)).isEqualTo(Blame.BROKER);
  }

  @Test
  void aRefusedOrLostConnectionIsTheBrokersFault() {
    assertThat(
            Blame.of(
                new RuntimeException("connect failed", new ConnectException("Connection refused"))))
        .isEqualTo(Blame.BROKER);
    assertThat(Blame.of(new java.io.IOException("Connection reset by peer")))
        .isEqualTo(Blame.BROKER);
    assertThat(Blame.of(new IllegalStateException("Cannot publish message when disposed.")))
        .isEqualTo(Blame.BROKER);
  }

  @Test
  void aMessageLargerThanTheEntityTakesIsThePermanentFaultOfTheMessage() {
    ServiceBusException tooLarge = serviceBus(AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED);

    assertThat(tooLarge.getReason()).isEqualTo(ServiceBusFailureReason.MESSAGE_SIZE_EXCEEDED);
    assertThat(Blame.of(tooLarge)).isEqualTo(Blame.MESSAGE_PERMANENT);
    assertThat(Blame.MESSAGE_PERMANENT.isBrokerFault()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(
      value = AmqpErrorCondition.class,
      names = {"NOT_FOUND", "ARGUMENT_ERROR", "ARGUMENT_OUT_OF_RANGE_ERROR"})
  void aMissingEntityOrARefusedArgumentIsTheMessagesFault(AmqpErrorCondition condition) {
    assertThat(Blame.of(serviceBus(condition))).isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Blame.of(amqp(condition))).isEqualTo(Blame.MESSAGE_RETRYABLE);
  }

  @Test
  void aDisabledEntityIsTheBrokersFaultSoThatItsBacklogWaits() {
    assertThat(Blame.of(serviceBus(AmqpErrorCondition.ENTITY_DISABLED_ERROR)))
        .isEqualTo(Blame.BROKER);
    assertThat(Blame.of(amqp(AmqpErrorCondition.ENTITY_DISABLED_ERROR))).isEqualTo(Blame.BROKER);
  }

  @Test
  void anUnknownFailureIsTheMessagesRetryableFaultAsBefore() {
    assertThat(Blame.of(new IllegalArgumentException("bad header value")))
        .isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Blame.of(serviceBus(AmqpErrorCondition.NOT_IMPLEMENTED)))
        .isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Blame.MESSAGE_RETRYABLE.isBrokerFault()).isFalse();
  }
}
