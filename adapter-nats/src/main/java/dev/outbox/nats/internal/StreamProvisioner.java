package dev.outbox.nats.internal;

import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.nats.NatsStreamOptions;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the configured stream when it is missing: at start when the server is reachable,
 * otherwise before the first publish, and again after a publish found no stream (someone deleted
 * it). An existing stream is never changed.
 */
public final class StreamProvisioner {

  private static final Logger LOG = LoggerFactory.getLogger(StreamProvisioner.class);
  private static final int STREAM_NOT_FOUND = 10059;
  private static final int STREAM_NAME_IN_USE = 10058;

  private final NatsStreamOptions stream;
  private final StreamConfiguration configuration;
  private volatile boolean ready;

  /**
   * A provisioner for the options' stream; it does nothing when stream creation is off.
   *
   * @param options the publisher options
   */
  public StreamProvisioner(NatsPublisherOptions options) {
    this.stream = options.stream();
    this.configuration =
        StreamConfiguration.builder()
            .name(stream.name())
            .subjects(options.streamSubjects())
            .storageType(
                stream.storage() == NatsStreamOptions.Storage.FILE
                    ? StorageType.File
                    : StorageType.Memory)
            .duplicateWindow(stream.duplicateWindow())
            .replicas(stream.replicas())
            .build();
    this.ready = !stream.create();
  }

  /**
   * Makes sure the stream exists.
   *
   * @param connection a connected connection
   * @param budget how long the management requests may take
   * @return {@code null} when the stream exists (or creation is off), otherwise what went wrong: a
   *     broker fault when JetStream does not answer or answers with a 5xx error, a failure of the
   *     messages when it refuses the stream's configuration (4xx, for example subjects that overlap
   *     another stream's)
   */
  public synchronized Failures.Reason ensure(Connection connection, Duration budget) {
    if (ready) {
      return null;
    }
    try {
      JetStreamManagement jsm =
          connection.jetStreamManagement(JetStreamOptions.builder().requestTimeout(budget).build());
      if (!exists(jsm)) {
        create(jsm);
      }
      ready = true;
      return null;
    } catch (JetStreamApiException e) {
      String text =
          "JetStream refused to create stream "
              + stream.name()
              + " for "
              + configuration.getSubjects()
              + ": "
              + e.getErrorDescription()
              + " (error "
              + e.getApiErrorCode()
              + ')';
      return e.getErrorCode() >= 500 ? Failures.Reason.broker(text) : Failures.Reason.message(text);
    } catch (IOException | RuntimeException e) {
      return Failures.Reason.broker(
          "could not create stream "
              + stream.name()
              + ": "
              + e.getMessage()
              + " (JetStream did not answer: is it enabled and running?)");
    }
  }

  /** Checks the stream again before the next publish: a publish found no stream. */
  public void recheck() {
    if (stream.create()) {
      ready = false;
    }
  }

  private boolean exists(JetStreamManagement jsm) throws IOException, JetStreamApiException {
    try {
      jsm.getStreamInfo(stream.name());
      return true;
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  private void create(JetStreamManagement jsm) throws IOException, JetStreamApiException {
    try {
      jsm.addStream(configuration);
      LOG.info(
          "Created JetStream stream {} for {} ({} storage, duplicate window {})",
          stream.name(),
          configuration.getSubjects(),
          stream.storage(),
          stream.duplicateWindow());
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != STREAM_NAME_IN_USE) {
        throw e;
      }
    }
  }
}
