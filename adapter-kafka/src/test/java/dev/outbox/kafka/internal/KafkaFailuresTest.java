package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.PublishException;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaFailuresTest {

  private static final UUID ID = UUID.fromString("0190d0a4-7c9a-7000-8000-000000000001");

  @ParameterizedTest
  @ValueSource(
      classes = {
        TimeoutException.class,
        NetworkException.class,
        NotLeaderOrFollowerException.class,
        NotEnoughReplicasException.class,
        UnknownTopicOrPartitionException.class,
        BrokerNotAvailableException.class,
        SaslAuthenticationException.class,
        InterruptException.class,
        IllegalStateException.class
      })
  void unavailabilityTimeoutsAndTransientErrorsAreRetryable(Class<? extends Exception> type)
      throws Exception {
    assertThat(KafkaFailures.classify(ID, "orders", instance(type)).isRetryable()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      classes = {
        TopicAuthorizationException.class,
        ClusterAuthorizationException.class,
        RecordTooLargeException.class,
        RecordBatchTooLargeException.class,
        SerializationException.class,
        InvalidTopicException.class,
        UnsupportedVersionException.class
      })
  void authorizationOversizeAndInvalidRecordsAreNotRetryable(Class<? extends Exception> type)
      throws Exception {
    assertThat(KafkaFailures.classify(ID, "orders", instance(type)).isRetryable()).isFalse();
  }

  @Test
  void failureOfASendFutureIsClassifiedByItsCause() {
    PublishException failure =
        KafkaFailures.classify(
            ID, "orders", new ExecutionException(new RecordTooLargeException("too big")));

    assertThat(failure.isRetryable()).isFalse();
    assertThat(failure.getCause()).isInstanceOf(RecordTooLargeException.class);
  }

  @Test
  void failureNamesTheMessageIdAndTheTopic() {
    PublishException failure =
        KafkaFailures.classify(ID, "orders", new NetworkException("connection reset"));

    assertThat(failure.messageId()).isEqualTo(ID);
    assertThat(failure.destination()).isEqualTo("orders");
    assertThat(failure)
        .hasMessageContaining(ID.toString())
        .hasMessageContaining("orders")
        .hasMessageContaining("connection reset");
  }

  @Test
  void missingTopicIsExplained() {
    PublishException failure =
        KafkaFailures.classify(
            ID,
            "orders",
            new TimeoutException("Topic orders not present in metadata after 5000 ms."));

    assertThat(failure.isRetryable()).isTrue();
    assertThat(failure).hasMessageContaining("does not exist and auto-creation is off");
  }

  private static Exception instance(Class<? extends Exception> type) throws Exception {
    if (type == InterruptException.class) {
      return new InterruptException(new InterruptedException());
    }
    return type.getConstructor(String.class).newInstance("failed");
  }
}
