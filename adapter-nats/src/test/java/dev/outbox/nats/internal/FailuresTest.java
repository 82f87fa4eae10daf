package dev.outbox.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.PublishException.Fault;
import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.testkit.TestMessages;
import io.nats.client.AuthenticationException;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.ApiResponse;
import io.nats.client.support.JsonParser;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Whose fault each failure the JetStream client reports is, and what its message says. */
class FailuresTest {

  private static final String SUBJECT = "events.Order.order.placed";
  private static final OutboxMessage MESSAGE = TestMessages.message("Order", "order-1");

  /** A failed ack as jnats completes it: ExecutionException(RuntimeException(cause)). */
  private static Throwable asCompleted(Throwable cause) {
    return new ExecutionException(new RuntimeException(cause));
  }

  private static JetStreamApiException apiError(int code, int errCode, String description)
      throws Exception {
    String json =
        "{\"error\":{\"code\":"
            + code
            + ",\"err_code\":"
            + errCode
            + ",\"description\":\""
            + description
            + "\"}}";
    return new JetStreamApiException(new ApiResponse<Object>(JsonParser.parse(json)) {});
  }

  private static PublishException ack(Throwable cause, boolean othersAcknowledged) {
    return Failures.ackFailed(MESSAGE, SUBJECT, asCompleted(cause), othersAcknowledged);
  }

  private static void assertMessageFault(PublishException failure, boolean retryable) {
    assertThat(failure.fault()).as("fault of %s", failure).isEqualTo(Fault.MESSAGE);
    assertThat(failure.isRetryable()).as("retryable: %s", failure).isEqualTo(retryable);
  }

  private static void assertBrokerFault(PublishException failure) {
    assertThat(failure.fault()).as("fault of %s", failure).isEqualTo(Fault.BROKER);
    assertThat(failure.isRetryable()).isTrue();
  }

  @Test
  void noRespondersWhileJetStreamSaysNoStreamCapturesTheSubjectIsTheMessagesRetryableFault() {
    PublishException failure =
        Failures.noResponders(MESSAGE, SUBJECT, StreamLookup.noStream(), null);

    assertMessageFault(failure, true);
    assertThat(failure)
        .hasMessageStartingWith("no stream for subject " + SUBJECT)
        .hasMessageContaining(MESSAGE.id().toString());
  }

  @Test
  void noRespondersWhileTheJetStreamApiDoesNotAnswerIsTheBrokersFault() {
    PublishException failure =
        Failures.noResponders(
            MESSAGE,
            SUBJECT,
            StreamLookup.jetStreamUnavailable("Timeout or no response waiting for NATS JetStream"),
            null);

    assertBrokerFault(failure);
    assertThat(failure).hasMessageContaining("JetStream is not available");
  }

  @Test
  void noRespondersFromAStreamThatCapturesTheSubjectIsTheBrokersFaultNamingTheStream() {
    PublishException failure =
        Failures.noResponders(MESSAGE, SUBJECT, StreamLookup.streamNotAnswering("ORDERS"), null);

    assertBrokerFault(failure);
    assertThat(failure).hasMessageContaining("stream ORDERS").hasMessageContaining("no leader");
  }

  @Test
  void noRespondersIsRecognisedThroughTheFutureWrappersButA503ErrorAnswerIsNot() throws Exception {
    IOException noResponders =
        new IOException("Error Publishing: 503 No Responders Available For Request");

    assertThat(Failures.isNoResponders(asCompleted(noResponders))).isTrue();
    assertThat(
            Failures.isNoResponders(
                asCompleted(apiError(503, 10008, "JetStream system temporarily unavailable"))))
        .isFalse();
    assertThat(Failures.isNoResponders(asCompleted(new TimeoutException()))).isFalse();
  }

  @Test
  void jetStreamErrorsWithA5xxCodeAreTheBrokersFault() throws Exception {
    for (JetStreamApiException error :
        List.of(
            apiError(503, 10023, "insufficient resources"),
            apiError(503, 10008, "JetStream system temporarily unavailable"),
            apiError(503, 10039, "JetStream not enabled for account"),
            apiError(500, 10118, "stream is offline"))) {
      PublishException failure = ack(error, false);

      assertBrokerFault(failure);
      assertThat(failure).hasMessageContaining(error.getErrorDescription());
    }
  }

  @Test
  void jetStreamErrorsWithA4xxCodeAreTheMessagesRetryableFault() throws Exception {
    for (JetStreamApiException error :
        List.of(
            apiError(400, 10054, "message size exceeds maximum allowed"),
            apiError(400, 10071, "wrong last sequence: 41"),
            apiError(400, 10070, "wrong last msg ID: abc"),
            apiError(409, 10158, "duplicate message id is in process"))) {
      PublishException failure = ack(error, false);

      assertMessageFault(failure, true);
      assertThat(failure)
          .hasMessageContaining("JetStream rejected the message: " + error.getErrorDescription())
          .hasMessageContaining("error " + error.getApiErrorCode());
    }
  }

  @Test
  void noAcknowledgementInTimeIsTheBrokersFaultWhenNoMessageOfTheBatchGotOne() {
    for (Throwable noAnswer :
        List.of(
            new TimeoutException(),
            new CancellationException("Future cancelled, response not registered in time"),
            new IOException("Timeout or no response waiting for NATS JetStream server"))) {
      PublishException failure = ack(noAnswer, false);

      assertBrokerFault(failure);
      assertThat(failure).hasMessageContaining("did not acknowledge the message in time");
    }
  }

  @Test
  void noAcknowledgementInTimeIsTheMessagesRetryableFaultWhenOthersOfTheBatchGotOne() {
    PublishException failure = ack(new TimeoutException(), true);

    assertMessageFault(failure, true);
    assertThat(failure).hasMessageContaining("other messages of the batch were acknowledged");
  }

  @Test
  void aClosedOrReconnectingConnectionIsTheBrokersFaultWhetherSendingOrAwaitingTheAck() {
    IllegalStateException closed = new IllegalStateException("Connection is Closed");
    IllegalStateException buffer =
        new IllegalStateException(
            "Unable to queue any more messages during reconnect, max buffer is 8388608");

    assertBrokerFault(Failures.notTaken(MESSAGE, SUBJECT, closed));
    assertBrokerFault(Failures.notTaken(MESSAGE, SUBJECT, buffer));
    assertBrokerFault(ack(closed, true));
    assertBrokerFault(Failures.unexpected(closed).toException(MESSAGE.id(), null, closed));
  }

  @Test
  void aMessageLargerThanTheServersMaxPayloadIsThePermanentFaultOfTheMessage() {
    IllegalArgumentException tooLarge =
        new IllegalArgumentException(
            "Message payload size exceed server configuration 1048577 vs 1048576");

    PublishException failure = Failures.rejectedByClient(MESSAGE, SUBJECT, tooLarge);

    assertMessageFault(failure, false);
    assertThat(failure).hasMessageContaining("payload size exceed");
  }

  @Test
  void anUnexpectedClientExceptionIsTheMessagesRetryableFault() {
    NullPointerException bug = new NullPointerException("header");

    assertMessageFault(Failures.notTaken(MESSAGE, SUBJECT, bug), true);
    assertMessageFault(
        ack(new IOException("Expected ack from stream A, received from: B"), false), true);
  }

  @Test
  void refusedCredentialsOfAUserSaySoAndNameTheUserAndTheServer() {
    String text =
        Failures.credentialsRefused(
            "nats://127.0.0.1:4333", new Login(Login.Kind.USER, "app"), "Authorization Violation");

    assertThat(text)
        .isEqualTo(
            "NATS at nats://127.0.0.1:4333 refused the credentials of user 'app'"
                + " (Authorization Violation); fix the user or password");
  }

  @Test
  void refusedTokenCredentialsFileOrMissingCredentialsSayWhatToFix() {
    String servers = "[nats://a:4222, nats://b:4222]";
    String error = "Authorization Violation";

    assertThat(Failures.credentialsRefused(servers, new Login(Login.Kind.TOKEN, null), error))
        .isEqualTo("NATS at " + servers + " refused the token (" + error + "); fix the token");
    assertThat(
            Failures.credentialsRefused(
                servers, new Login(Login.Kind.CREDENTIALS_FILE, null), error))
        .contains("refused the credentials of the credentials file", "fix the credentials file");
    assertThat(Failures.credentialsRefused(servers, new Login(Login.Kind.NONE, null), error))
        .contains("requires credentials", "set a user and password, a token or a credentials file");
  }

  @Test
  void authorizationAndAuthenticationErrorsRefuseTheCredentialsButAPermissionsViolationDoesNot() {
    assertThat(Failures.isCredentialsRefusal("Authorization Violation")).isTrue();
    assertThat(Failures.isCredentialsRefusal("User Authentication Expired")).isTrue();
    assertThat(Failures.isCredentialsRefusal("Authentication Timeout")).isTrue();
    assertThat(Failures.isCredentialsRefusal("Permissions Violation for Publish to \"x\""))
        .isFalse();
    assertThat(Failures.isCredentialsRefusal("Maximum Payload Violation")).isFalse();
    assertThat(Failures.isCredentialsRefusal(null)).isFalse();
  }

  @Test
  void theLoginIsTheUserSetOrTheUserOfAServerUrlNeverItsPassword() {
    NatsPublisherOptions user =
        NatsPublisherOptions.builder().userPassword("app", "s3cret").build();
    NatsPublisherOptions inUrl =
        NatsPublisherOptions.builder().servers(List.of("nats://svc:s3cret@host:4222")).build();
    NatsPublisherOptions tokenInUrl =
        NatsPublisherOptions.builder().servers(List.of("nats://t0ken@host:4222")).build();

    assertThat(Login.of(user)).isEqualTo(new Login(Login.Kind.USER, "app"));
    assertThat(Login.of(inUrl)).isEqualTo(new Login(Login.Kind.USER, "svc"));
    assertThat(Login.of(tokenInUrl)).isEqualTo(new Login(Login.Kind.TOKEN, null));
    assertThat(Login.of(NatsPublisherOptions.builder().token("t0ken").build()).kind())
        .isEqualTo(Login.Kind.TOKEN);
    assertThat(Login.of(NatsPublisherOptions.defaults()))
        .isEqualTo(new Login(Login.Kind.NONE, null));
  }

  @Test
  void anAuthenticationExceptionIsNotMistakenForNoAnswer() {
    AuthenticationException refused =
        new AuthenticationException(
            "Authentication error connecting to NATS server: Authorization Violation");

    assertThat(Failures.isNoAnswer(refused)).isFalse();
    assertThat(Failures.isNoResponders(refused)).isFalse();
  }
}
