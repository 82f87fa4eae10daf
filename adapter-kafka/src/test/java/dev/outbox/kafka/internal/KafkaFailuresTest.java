package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.PublishException;
import dev.outbox.kafka.internal.ClusterContact.Seen;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class KafkaFailuresTest {

  private static final UUID ID = UUID.fromString("0190d0a4-7c9a-7000-8000-000000000001");
  private static final String MISSING = "Topic orders not present in metadata after 5000 ms.";

  private final KafkaFailures failures = new KafkaFailures("app");

  /** Failures whose kind alone decides: the cluster's answers must not even be asked. */
  private static final Supplier<Seen> NOT_ASKED =
      () -> {
        throw new AssertionError("what the cluster answered decides nothing here");
      };

  static Stream<Exception> failuresOfTheClusterOrTheConnection() {
    return Stream.of(
        new TimeoutException(
            "Expiring 3 record(s) for orders-0:30001 ms has passed since batch creation"),
        new TimeoutException("Failed to allocate memory within the configured max blocking time"),
        new NetworkException("connection reset"),
        new DisconnectException("disconnected"),
        new NotLeaderOrFollowerException("not the leader"),
        new LeaderNotAvailableException("no leader"),
        new NotEnoughReplicasException("1 of 3 in sync"),
        new NotEnoughReplicasAfterAppendException("1 of 3 in sync"),
        new KafkaStorageException("disk failed"),
        new BrokerNotAvailableException("broker 1 is not available"),
        new InterruptException(new InterruptedException()),
        new IllegalStateException("Cannot perform operation after producer has been closed"),
        new KafkaException("Producer is closed forcefully."),
        new KafkaException("Producer closed while send in progress"),
        new SaslAuthenticationException("Authentication failed: Invalid username or password"),
        new TopicAuthorizationException(Set.of("orders")),
        new ClusterAuthorizationException("IDEMPOTENT_WRITE denied"));
  }

  @ParameterizedTest
  @MethodSource
  void failuresOfTheClusterOrTheConnection(Exception failure) {
    PublishException classified = failures.classify(ID, "orders", failure, NOT_ASKED);

    assertThat(classified.isBrokerFault()).as("%s", classified).isTrue();
    assertThat(classified.isRetryable()).isTrue();
  }

  static Stream<Exception> permanentFailuresOfTheMessage() {
    return Stream.of(
        new RecordTooLargeException("too large"),
        new RecordBatchTooLargeException("too large"),
        new InvalidRecordException("null key on a compacted topic"),
        new InvalidTopicException("no spaces allowed"),
        new SerializationException("cannot serialize"),
        new UnsupportedVersionException("too old a broker"),
        new InvalidConfigurationException("bad config"));
  }

  @ParameterizedTest
  @MethodSource
  void permanentFailuresOfTheMessage(Exception failure) {
    PublishException classified = failures.classify(ID, "orders", failure, NOT_ASKED);

    assertThat(classified.isBrokerFault()).as("%s", classified).isFalse();
    assertThat(classified.isRetryable()).isFalse();
  }

  static Stream<Exception> retryableFailuresOfTheMessage() {
    return Stream.of(
        new UnknownTopicOrPartitionException("This server does not host this topic-partition."),
        new CorruptRecordException("CRC mismatch"),
        new KafkaException("something unforeseen"),
        new IllegalArgumentException("something unforeseen"));
  }

  @ParameterizedTest
  @MethodSource
  void retryableFailuresOfTheMessage(Exception failure) {
    PublishException classified = failures.classify(ID, "orders", failure, NOT_ASKED);

    assertThat(classified.isBrokerFault()).as("%s", classified).isFalse();
    assertThat(classified.isRetryable()).isTrue();
  }

  @Test
  void topicMissingFromTheMetadataWhileBrokersAnswerIsTheMessagesFault() {
    PublishException classified =
        failures.classify(ID, "orders", new TimeoutException(MISSING), () -> Seen.ANSWERED);

    assertThat(classified.isBrokerFault()).isFalse();
    assertThat(classified.isRetryable()).isTrue();
    assertThat(classified)
        .hasMessageContaining("topic orders does not exist")
        .hasMessageContaining("create it");
  }

  @Test
  void topicMissingFromTheMetadataWhileNoBrokerAnswersIsTheBrokersFault() {
    PublishException classified =
        failures.classify(ID, "orders", new TimeoutException(MISSING), () -> Seen.NOTHING);

    assertThat(classified.isBrokerFault()).isTrue();
    assertThat(classified)
        .hasMessageContaining("Kafka is unreachable")
        .hasMessageContaining(MISSING);
  }

  @Test
  void lookupCutShortByThePublishTimeoutIsAMetadataTimeoutToo() {
    TimeoutException cutShort =
        new TimeoutException("Topic orders not present in metadata within the publish timeout");

    assertThat(failures.classify(ID, "orders", cutShort, () -> Seen.NOTHING).isBrokerFault())
        .isTrue();
    assertThat(failures.classify(ID, "orders", cutShort, () -> Seen.ANSWERED).isBrokerFault())
        .isFalse();
  }

  @Test
  void metadataTimeoutWhileBrokersRefuseTheCredentialsSaysSo() {
    PublishException classified =
        failures.classify(
            ID, "orders", new TimeoutException(MISSING), () -> Seen.CREDENTIALS_REFUSED);

    assertThat(classified.isBrokerFault()).isTrue();
    assertThat(classified)
        .hasMessageContaining("Kafka refused the credentials of SASL user 'app'")
        .hasMessageContaining("fix sasl.jaas.config");
  }

  @Test
  void refusedCredentialsNameTheUserAndTheFixButNoPassword() {
    PublishException classified =
        failures.classify(
            ID,
            "orders",
            new SaslAuthenticationException("Authentication failed: Invalid username or password"),
            NOT_ASKED);

    assertThat(classified.isBrokerFault()).isTrue();
    assertThat(classified.getMessage())
        .startsWith(
            "Kafka refused the credentials of SASL user 'app' (SaslAuthenticationException:"
                + " Authentication failed: Invalid username or password); fix sasl.jaas.config");
  }

  @Test
  void refusedCredentialsWithoutAKnownUserStillSaySo() {
    PublishException classified =
        new KafkaFailures(null)
            .classify(ID, "orders", new SaslAuthenticationException("failed"), NOT_ASKED);

    assertThat(classified).hasMessageStartingWith("Kafka refused the credentials (");
  }

  @Test
  void refusedTlsHandshakePointsAtTheSslSettings() {
    PublishException classified =
        new KafkaFailures(null)
            .classify(ID, "orders", new SslAuthenticationException("bad certificate"), NOT_ASKED);

    assertThat(classified.isBrokerFault()).isTrue();
    assertThat(classified).hasMessageContaining("fix the ssl.* producer properties");
  }

  @Test
  void refusedPermissionNamesTheTopicAndTheAcls() {
    PublishException classified =
        failures.classify(
            ID, "orders", new TopicAuthorizationException(Set.of("orders")), NOT_ASKED);

    assertThat(classified)
        .hasMessageContaining("Kafka refused the permission of SASL user 'app'")
        .hasMessageContaining("WRITE on topic orders");
  }

  @ParameterizedTest
  @EnumSource(Seen.class)
  void failureOfASendFutureIsClassifiedByItsCause(Seen seen) {
    PublishException failure =
        failures.classify(
            ID,
            "orders",
            new ExecutionException(new RecordTooLargeException("too big")),
            () -> seen);

    assertThat(failure.isRetryable()).isFalse();
    assertThat(failure.isBrokerFault()).isFalse();
    assertThat(failure.getCause()).isInstanceOf(RecordTooLargeException.class);
  }

  @Test
  void failureNamesTheMessageIdAndTheTopic() {
    PublishException failure =
        failures.classify(ID, "orders", new NetworkException("connection reset"), NOT_ASKED);

    assertThat(failure.messageId()).isEqualTo(ID);
    assertThat(failure.destination()).isEqualTo("orders");
    assertThat(failure)
        .hasMessageContaining(ID.toString())
        .hasMessageContaining("orders")
        .hasMessageContaining("connection reset");
  }
}
