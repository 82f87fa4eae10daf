package dev.outbox.kafka.internal;

import dev.outbox.PublishException;
import dev.outbox.kafka.internal.ClusterContact.Seen;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Turns what the Kafka producer reports into a {@link PublishException} that says whose fault it is
 * and whether another attempt may succeed.
 *
 * <ul>
 *   <li>The broker's fault ({@link PublishException#brokerUnavailable}: no attempt counts): the
 *       cluster cannot be reached (a metadata lookup that timed out while no broker answered), no
 *       acknowledgement within {@code delivery.timeout.ms}, a full buffer, every retriable Kafka
 *       error about the cluster (network, disconnect, no leader, not enough replicas, storage), an
 *       unavailable broker, credentials refused ({@link AuthenticationException}), permissions
 *       refused ({@link AuthorizationException}), a producer closed under the send (the client was
 *       recreated or the publisher closed), and an interrupt.
 *   <li>The message's fault, permanent: records or batches too large, invalid records or topic
 *       names, serialization, unsupported versions and invalid configuration. No retry can fix
 *       them.
 *   <li>The message's fault, retryable: a topic the cluster does not have (a metadata lookup that
 *       timed out while brokers answered: see {@link ClusterContact}), an unknown topic or
 *       partition in a produce answer, a corrupt record, and anything not listed above.
 * </ul>
 *
 * <p>Messages name what the operator must fix. Refused credentials name the SASL user when the
 * configuration has one, never the password.
 */
public final class KafkaFailures {

  private static final String METADATA_TIMEOUT = "not present in metadata";

  private final String saslUser;

  /**
   * A classifier for one producer's failures.
   *
   * @param saslUser the user name of the producer's {@code sasl.jaas.config}, or {@code null}
   */
  public KafkaFailures(String saslUser) {
    this.saslUser = saslUser;
  }

  /**
   * Classifies a failure.
   *
   * @param messageId the message concerned
   * @param topic the topic it was sent to, or {@code null}
   * @param failure what the producer threw or completed the send with
   * @param seen what came back from the cluster while the failed lookup or send waited; asked only
   *     for a metadata timeout
   * @return the failure to report
   */
  public PublishException classify(
      UUID messageId, String topic, Throwable failure, Supplier<Seen> seen) {
    Throwable cause = unwrap(failure);
    if (cause instanceof AuthenticationException) {
      return PublishException.brokerUnavailable(
          messageId, topic, credentialsRefused(name(cause)), cause);
    }
    if (cause instanceof AuthorizationException) {
      return PublishException.brokerUnavailable(
          messageId, topic, permissionRefused(topic, cause), cause);
    }
    if (isPermanent(cause)) {
      return PublishException.permanent(
          messageId, topic, "Kafka refused it: " + name(cause), cause);
    }
    if (isMetadataTimeout(cause)) {
      return missingFromMetadata(messageId, topic, cause, seen.get());
    }
    if (isBrokerFault(cause)) {
      return PublishException.brokerUnavailable(messageId, topic, brokerFailed(cause), cause);
    }
    return PublishException.retryable(messageId, topic, "Kafka send failed: " + name(cause), cause);
  }

  private PublishException missingFromMetadata(
      UUID messageId, String topic, Throwable cause, Seen seen) {
    return switch (seen) {
      case ANSWERED ->
          PublishException.retryable(
              messageId,
              topic,
              "topic "
                  + topic
                  + " does not exist: the Kafka cluster answers but has no metadata for it"
                  + " (create it; auto-creation is off): "
                  + name(cause),
              cause);
      case CREDENTIALS_REFUSED ->
          PublishException.brokerUnavailable(
              messageId,
              topic,
              credentialsRefused(
                  "failed authentication while looking up the topic; " + name(cause)),
              cause);
      case NOTHING ->
          PublishException.brokerUnavailable(
              messageId,
              topic,
              "Kafka is unreachable: no broker answered while looking up topic "
                  + topic
                  + " ("
                  + name(cause)
                  + ")",
              cause);
    };
  }

  /**
   * Whether the failure is of the cluster or the connection rather than of the message, apart from
   * a metadata timeout (which depends on what the cluster answered) and refused credentials or
   * permissions (always the broker's).
   *
   * @param cause the unwrapped failure
   * @return {@code true} for failures that would fail any message
   */
  static boolean isBrokerFault(Throwable cause) {
    if (cause instanceof UnknownTopicOrPartitionException
        || cause instanceof CorruptRecordException) {
      return false; // about this topic or this record, not the cluster
    }
    return cause instanceof RetriableException // timeouts, network, no leader, replicas, storage
        || cause instanceof BrokerNotAvailableException
        || cause instanceof InterruptException
        || cause instanceof InterruptedException
        || cause instanceof IllegalStateException // "Cannot perform operation after ... closed"
        || cause instanceof RejectedExecutionException // a lookup after the client was recreated
        || isProducerClosed(cause);
  }

  /**
   * Whether no retry can fix the failure.
   *
   * @param cause the unwrapped failure
   * @return {@code true} for records too large, invalid records or topics, serialization,
   *     unsupported versions, invalid configuration
   */
  static boolean isPermanent(Throwable cause) {
    return cause instanceof RecordTooLargeException
        || cause instanceof RecordBatchTooLargeException
        || cause instanceof InvalidRecordException
        || cause instanceof InvalidTopicException
        || cause instanceof SerializationException
        || cause instanceof UnsupportedVersionException
        || cause instanceof InvalidConfigurationException;
  }

  /**
   * Whether a failure is the producer's wait for a topic's metadata running out: Kafka's "Topic X
   * not present in metadata after N ms" (and its partition variant), or the same wait cut short by
   * the publish timeout ({@link TopicMetadata}).
   *
   * @param cause the unwrapped failure
   * @return {@code true} for a metadata timeout
   */
  static boolean isMetadataTimeout(Throwable cause) {
    return cause instanceof TimeoutException
        && cause.getMessage() != null
        && cause.getMessage().contains(METADATA_TIMEOUT);
  }

  /** The producer fails what it holds when it is closed: forcefully, or while a send ran. */
  private static boolean isProducerClosed(Throwable cause) {
    return cause.getClass() == KafkaException.class
        && cause.getMessage() != null
        && (cause.getMessage().contains("closed forcefully")
            || cause.getMessage().contains("Producer closed"));
  }

  private String credentialsRefused(String detail) {
    return "Kafka refused the credentials"
        + (saslUser == null ? "" : " of SASL user '" + saslUser + "'")
        + " ("
        + detail
        + "); fix "
        + (detail.startsWith(SslAuthenticationException.class.getSimpleName())
            ? "the ssl.* producer properties (keystore, truststore)"
            : "sasl.jaas.config");
  }

  private String permissionRefused(String topic, Throwable cause) {
    return "Kafka refused the permission"
        + (saslUser == null ? "" : " of SASL user '" + saslUser + "'")
        + " ("
        + name(cause)
        + "); grant the producer's principal WRITE on topic "
        + (topic == null ? "the topic" : topic)
        + " and IDEMPOTENT_WRITE on the cluster (ACLs)";
  }

  private static String brokerFailed(Throwable cause) {
    if (cause instanceof TimeoutException) {
      return "Kafka did not take the record in time (the cluster or the partition's leader is"
          + " unreachable): "
          + name(cause);
    }
    if (cause instanceof InterruptException || cause instanceof InterruptedException) {
      return "interrupted while publishing to Kafka (the outbox is stopping): " + name(cause);
    }
    if (isProducerClosed(cause) || cause instanceof IllegalStateException) {
      return "the Kafka producer was closed under the send (recreated, or the publisher closed): "
          + name(cause);
    }
    return "Kafka is unavailable: " + name(cause);
  }

  private static String name(Throwable cause) {
    String type = cause.getClass().getSimpleName();
    return cause.getMessage() == null ? type : type + ": " + cause.getMessage();
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable current = failure;
    while ((current instanceof ExecutionException || current instanceof CompletionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}
