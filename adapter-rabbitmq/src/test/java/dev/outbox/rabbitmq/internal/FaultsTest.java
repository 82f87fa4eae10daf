package dev.outbox.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.MissedHeartbeatException;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.PublishException;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class FaultsTest {

  private static final RabbitMqPublisherOptions OPTIONS =
      RabbitMqPublisherOptions.builder()
          .host("127.0.0.1")
          .port(5672)
          .virtualHost("orders")
          .username("app")
          .password("s3cret-pw")
          .build();

  // Connection level: the broker's fault

  @Test
  void aLostConnectionIsTheBrokersFault() {
    ShutdownSignalException lost = connectionLost();

    assertThat(Faults.ofClose(lost)).isEqualTo(Blame.BROKER);
    assertThat(Faults.ofSend(new AlreadyClosedException(lost))).isEqualTo(Blame.BROKER);
  }

  @Test
  void aConnectionTheBrokerClosesIsTheBrokersFaultWhateverTheCode() {
    for (int code : new int[] {AMQP.CONNECTION_FORCED, AMQP.INTERNAL_ERROR, AMQP.FRAME_ERROR}) {
      assertThat(Faults.ofClose(connectionClosed(code, "closed by the broker")))
          .as("connection.close %d", code)
          .isEqualTo(Blame.BROKER);
    }
  }

  @Test
  void missedHeartbeatsAndFailedSocketWritesAreTheBrokersFault() {
    assertThat(Faults.ofSend(new MissedHeartbeatException("no heartbeat for 60 s")))
        .isEqualTo(Blame.BROKER);
    assertThat(Faults.ofSend(new SocketException("Broken pipe"))).isEqualTo(Blame.BROKER);
  }

  @Test
  void aChannelTheClientClosedItselfIsNotTheMessagesFault() {
    ShutdownSignalException byClient =
        new ShutdownSignalException(false, true, channelClose(200, "OK"), "channel");

    assertThat(Faults.ofClose(byClient)).isEqualTo(Blame.BROKER);
    assertThat(Faults.ofClose(null)).isEqualTo(Blame.BROKER);
  }

  // Channel level: depends on why

  @Test
  void aRefusedPermissionOnTheExchangeIsTheBrokersFaultAndNothingWasStored() {
    ShutdownSignalException refused =
        channelClosed(
            AMQP.ACCESS_REFUSED,
            "ACCESS_REFUSED - write access to exchange 'orders' in vhost '/' refused for user"
                + " 'app'");

    assertThat(Faults.ofClose(refused)).isEqualTo(Blame.BROKER);
    assertThat(Faults.refusedBeforeStoring(refused)).isTrue();
  }

  @Test
  void aRefusedRoutingKeyIsTheBrokersFaultNotTheMessagesOfTheWholeBatch() {
    ShutdownSignalException refused =
        channelClosed(
            AMQP.ACCESS_REFUSED,
            "ACCESS_REFUSED - write access to topic 'order.placed' in exchange 'orders' in vhost"
                + " '/' refused for user 'app'");

    assertThat(Faults.ofClose(refused)).isEqualTo(Blame.BROKER);
  }

  @Test
  void aMissingExchangeIsTheRetryableFaultOfTheMessage() {
    ShutdownSignalException missing =
        channelClosed(AMQP.NOT_FOUND, "NOT_FOUND - no exchange 'orders' in vhost '/'");

    assertThat(Faults.ofClose(missing)).isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Faults.ofSend(new AlreadyClosedException(missing)))
        .isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Faults.refusedBeforeStoring(missing)).isFalse();
  }

  @Test
  void aMessageOverMaxMessageSizeIsTheRetryableFaultOfTheMessageAndTeachesTheLimit() {
    ShutdownSignalException tooLarge =
        channelClosed(
            AMQP.PRECONDITION_FAILED,
            "PRECONDITION_FAILED - message size 2000 is larger than configured max size 1024");

    assertThat(Faults.ofClose(tooLarge)).isEqualTo(Blame.MESSAGE_RETRYABLE);
    assertThat(Faults.maxMessageSize(tooLarge)).isEqualTo(1024);
    assertThat(
            Faults.maxMessageSize(
                channelClosed(
                    AMQP.PRECONDITION_FAILED,
                    "PRECONDITION_FAILED - message size 536870913 is larger than max size"
                        + " 536870912")))
        .isEqualTo(536_870_912L);
  }

  @Test
  void onlyASizeRefusalTeachesAMaxMessageSize() {
    assertThat(Faults.maxMessageSize(channelClosed(AMQP.NOT_FOUND, "NOT_FOUND - no exchange")))
        .isEqualTo(-1);
    assertThat(
            Faults.maxMessageSize(
                channelClosed(
                    AMQP.PRECONDITION_FAILED, "PRECONDITION_FAILED - invalid expiration")))
        .isEqualTo(-1);
    assertThat(Faults.maxMessageSize(null)).isEqualTo(-1);
  }

  @Test
  void aChannelTheBrokerClosesForItsOwnTroubleIsTheBrokersFault() {
    assertThat(Faults.ofClose(channelClosed(AMQP.INTERNAL_ERROR, "INTERNAL_ERROR")))
        .isEqualTo(Blame.BROKER);
    assertThat(Faults.ofClose(channelClosed(AMQP.RESOURCE_ERROR, "RESOURCE_ERROR")))
        .isEqualTo(Blame.BROKER);
  }

  @Test
  void aSendThatThrowsSomethingElseIsTheRetryableFaultOfTheMessage() {
    assertThat(Faults.ofSend(new IllegalArgumentException("unsupported header value")))
        .isEqualTo(Blame.MESSAGE_RETRYABLE);
  }

  // Connecting: always the broker's, said so that the operator knows what to fix

  @Test
  void refusedCredentialsNameTheUserAndTheFixButNeverThePassword() {
    String reason =
        Faults.whyUnavailable(
            new AuthenticationFailureException(
                "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN"),
            OPTIONS);

    assertThat(reason)
        .isEqualTo(
            "RabbitMQ at 127.0.0.1:5672 refused the credentials of user 'app' (ACCESS_REFUSED);"
                + " fix the username or password")
        .doesNotContain("s3cret-pw");
    assertThat(
            Faults.whyUnavailable(
                new PossibleAuthenticationFailureException(new IOException("EOF")), OPTIONS))
        .contains("credentials")
        .contains("user 'app'");
  }

  @Test
  void aRefusedOrMissingVirtualHostSaysSo() {
    IOException refused =
        new IOException(
            null, connectionClosed(AMQP.NOT_ALLOWED, "NOT_ALLOWED - vhost orders not found"));

    assertThat(Faults.whyUnavailable(refused, OPTIONS))
        .contains("refused user 'app' access to virtual host 'orders'")
        .contains("530 NOT_ALLOWED - vhost orders not found")
        .contains("create the virtual host");
    assertThat(Faults.isRefusal(refused)).isTrue();
  }

  @Test
  void anUnreachableBrokerNamesItsAddressAndWhatTheClientSaid() {
    String reason = Faults.whyUnavailable(new ConnectException("Connection refused"), OPTIONS);

    assertThat(reason)
        .isEqualTo(
            "RabbitMQ is unavailable at 127.0.0.1:5672 (virtual host orders):"
                + " java.net.ConnectException: Connection refused");
    assertThat(Faults.isRefusal(new ConnectException("Connection refused"))).isFalse();
    assertThat(Faults.isRefusal(new TimeoutException("handshake"))).isFalse();
  }

  @Test
  void aConnectionBeingRecoveredSaysThatTheClientRecoversIt() {
    ShutdownSignalException lost = connectionLost();

    assertThat(Faults.whyUnavailable(new AlreadyClosedException(lost), OPTIONS))
        .contains("java.net.SocketException: Connection reset")
        .contains("the client recovers the connection");
  }

  @Test
  void eachBlameBuildsTheMatchingFailure() {
    UUID id = UUID.randomUUID();
    PublishException broker = Blame.BROKER.failure(id, "orders", "down", null);
    PublishException retryable = Blame.MESSAGE_RETRYABLE.failure(id, "orders", "returned", null);

    assertThat(broker.isBrokerFault()).isTrue();
    assertThat(broker.isRetryable()).isTrue();
    assertThat(retryable.fault()).isEqualTo(PublishException.Fault.MESSAGE);
    assertThat(retryable.isRetryable()).isTrue();
    assertThat(broker).hasMessageContaining(id.toString()).hasMessageContaining("orders");
  }

  /** As the client reports a connection whose socket failed: the socket's error as the cause. */
  private static ShutdownSignalException connectionLost() {
    ShutdownSignalException lost = new ShutdownSignalException(true, false, null, "connection");
    lost.initCause(new SocketException("Connection reset"));
    return lost;
  }

  private static AMQP.Channel.Close channelClose(int code, String text) {
    return new AMQP.Channel.Close.Builder().replyCode(code).replyText(text).build();
  }

  private static ShutdownSignalException channelClosed(int code, String text) {
    return new ShutdownSignalException(false, false, channelClose(code, text), "channel");
  }

  private static ShutdownSignalException connectionClosed(int code, String text) {
    return new ShutdownSignalException(
        true,
        false,
        new AMQP.Connection.Close.Builder().replyCode(code).replyText(text).build(),
        "connection");
  }
}
