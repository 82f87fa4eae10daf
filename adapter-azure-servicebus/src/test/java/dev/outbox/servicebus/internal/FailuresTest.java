package dev.outbox.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpErrorContext;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.credential.TokenRequestContext;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import dev.outbox.PublishException;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class FailuresTest {

  private static final String CONNECTION_STRING =
      "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=outbox-sender;"
          + "SharedAccessKey=c2VjcmV0LWtleS12YWx1ZQ==";

  private static final Failures FAILURES =
      Failures.forOptions(
          ServiceBusPublisherOptions.builder().connectionString(CONNECTION_STRING).build());

  private static ServiceBusException serviceBus(AmqpErrorCondition condition, String text) {
    return new ServiceBusException(
        new AmqpException(false, condition, text, new AmqpErrorContext("orders")),
        ServiceBusErrorSource.SEND);
  }

  private static ServiceBusException refusedToken() {
    return serviceBus(
        AmqpErrorCondition.UNAUTHORIZED_ACCESS,
        "status-code: 401, status-description: InvalidSignature: The token has an invalid"
            + " signature.");
  }

  @Test
  void refusedCredentialsAreABrokerFaultThatNamesTheKeyNameButNeverTheKey() {
    PublishException failure =
        FAILURES.of(UUID.randomUUID(), "orders", "create batch", refusedToken());

    assertThat(failure.isBrokerFault()).isTrue();
    assertThat(failure.isRetryable()).isTrue();
    assertThat(failure)
        .hasMessageContaining(
            "Service Bus refused the credentials of key name 'outbox-sender' (UNAUTHORIZED);"
                + " fix the connection string")
        .hasMessageNotContaining("c2VjcmV0LWtleS12YWx1ZQ==")
        .hasMessageNotContaining("SharedAccessKey=")
        .hasMessageNotContaining("Endpoint=");
  }

  @Test
  void refusedCredentialsKeepTheSdksExceptionAsTheCause() {
    ServiceBusException sdk = refusedToken();
    PublishException failure = FAILURES.of(UUID.randomUUID(), "orders", "send", sdk);

    assertThat(failure.getCause()).isSameAs(sdk);
    assertThat(failure.reason())
        .isEqualTo(
            "send failed: Service Bus refused the credentials of key name 'outbox-sender'"
                + " (UNAUTHORIZED); fix the connection string (its SharedAccessKey, or the Send"
                + " right of that key)");
  }

  @Test
  void refusedCredentialsOfANamespaceNameTheCredentialAndTheRoleToGrant() {
    Failures failures =
        Failures.forOptions(
            ServiceBusPublisherOptions.builder()
                .namespace("orders.servicebus.windows.net", new WorkloadCredential())
                .build());

    PublishException failure = failures.of(UUID.randomUUID(), "orders", "send", refusedToken());

    assertThat(failure.isBrokerFault()).isTrue();
    assertThat(failure)
        .hasMessageContaining(
            "refused the credentials of the credential WorkloadCredential for namespace"
                + " orders.servicebus.windows.net")
        .hasMessageContaining("Azure Service Bus Data Sender");
  }

  @Test
  void aSendTheSdkGaveUpOnAtItsTryTimeoutIsTheBrokersFaultAndMayHaveLanded() {
    PublishException timedOut =
        FAILURES.sendFailed(
            UUID.randomUUID(),
            "orders",
            new ServiceBusException(
                new TimeoutException("Did not observe any item"), ServiceBusErrorSource.SEND));

    assertThat(timedOut.isBrokerFault()).isTrue();
    assertThat(timedOut.isRetryable()).isTrue();
    assertThat(timedOut)
        .hasMessageContaining("send failed")
        .hasMessageContaining("may or may not have the message");
  }

  @Test
  void aMessageTooLargeIsItsOwnPermanentFault() {
    PublishException failure =
        FAILURES.sendFailed(
            UUID.randomUUID(),
            "orders",
            serviceBus(AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED, "exceeds 262144 bytes"));

    assertThat(failure.isBrokerFault()).isFalse();
    assertThat(failure.isRetryable()).isFalse();
    assertThat(failure).hasMessageNotContaining("may or may not");
  }

  @Test
  void aMissingEntityIsTheMessagesRetryableFault() {
    PublishException failure =
        FAILURES.of(
            UUID.randomUUID(),
            "nowhere",
            "create batch",
            serviceBus(
                AmqpErrorCondition.NOT_FOUND,
                "The messaging entity 'nowhere' could not be found."));

    assertThat(failure.fault()).isEqualTo(PublishException.Fault.MESSAGE);
    assertThat(failure.isRetryable()).isTrue();
  }

  @Test
  void aMessageWhoseSendCouldNotStartInTimeIsNotToBlame() {
    UUID id = UUID.randomUUID();
    PublishException failure = Failures.notSent(id, "orders");

    assertThat(failure.isBrokerFault()).isTrue();
    assertThat(failure).hasMessageContaining("publish timeout ran out");
  }

  @Test
  void aMessageNotSentAfterABrokerFaultOfItsEntityGetsTheSameFault() {
    PublishException earlier =
        FAILURES.of(UUID.randomUUID(), "orders", "create batch", refusedToken());

    PublishException later = Failures.notSentAfter(UUID.randomUUID(), "orders", earlier);

    assertThat(later.isBrokerFault()).isTrue();
    assertThat(later).hasMessageContaining("refused the credentials");
  }

  @Test
  void theFailureNamesMessageEntityAndCause() {
    UUID id = UUID.randomUUID();
    PublishException failure =
        FAILURES.of(id, "orders", "send", new IllegalStateException("bad application property"));

    assertThat(failure.isRetryable()).isTrue();
    assertThat(failure.isBrokerFault()).isFalse();
    assertThat(failure.messageId()).isEqualTo(id);
    assertThat(failure.destination()).isEqualTo("orders");
    assertThat(failure)
        .hasMessageContaining("send failed")
        .hasMessageContaining("bad application property")
        .hasMessageContaining(id.toString());
  }

  /** A credential with a name of its own, as an application's would be. */
  private static final class WorkloadCredential implements TokenCredential {
    @Override
    public Mono<AccessToken> getToken(TokenRequestContext request) {
      return Mono.empty();
    }
  }
}
