package dev.outbox.nats.internal;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * What JetStream says about the streams for a subject that got "503 no responders": none captures
 * it (the message is unroutable), one captures it but did not answer (no leader), or the JetStream
 * API itself does not answer (JetStream is not enabled or not available).
 *
 * @param kind what was found
 * @param detail the stream's name, or why JetStream is not available; {@code null} for no stream
 */
public record StreamLookup(Kind kind, String detail) {

  /** What a lookup found. */
  public enum Kind {
    /** JetStream answered: no stream captures the subject. */
    NO_STREAM,
    /** JetStream answered: a stream captures the subject, yet nobody answered the publish. */
    STREAM_NOT_ANSWERING,
    /** The JetStream API did not answer, or answered that it is not available. */
    JETSTREAM_UNAVAILABLE
  }

  /** From this code up a JetStream error is the server's trouble; below it JetStream answered. */
  private static final int FIRST_SERVER_ERROR = 500;

  /**
   * No stream captures the subject.
   *
   * @return the lookup
   */
  public static StreamLookup noStream() {
    return new StreamLookup(Kind.NO_STREAM, null);
  }

  /**
   * A stream captures the subject but did not answer.
   *
   * @param stream its name
   * @return the lookup
   */
  public static StreamLookup streamNotAnswering(String stream) {
    return new StreamLookup(Kind.STREAM_NOT_ANSWERING, stream);
  }

  /**
   * JetStream is not available.
   *
   * @param why what the API call reported
   * @return the lookup
   */
  public static StreamLookup jetStreamUnavailable(String why) {
    return new StreamLookup(Kind.JETSTREAM_UNAVAILABLE, why);
  }

  /**
   * Asks JetStream which streams capture a subject ({@code $JS.API.STREAM.NAMES} with the subject
   * as filter), one request.
   *
   * @param connection the connection
   * @param subject the subject
   * @param budget how long the request may take
   * @return what JetStream said
   */
  public static StreamLookup find(Connection connection, String subject, Duration budget) {
    try {
      List<String> streams =
          connection
              .jetStreamManagement(JetStreamOptions.builder().requestTimeout(budget).build())
              .getStreamNames(subject);
      return streams.isEmpty() ? noStream() : streamNotAnswering(streams.get(0));
    } catch (JetStreamApiException e) {
      return e.getErrorCode() >= FIRST_SERVER_ERROR
          ? jetStreamUnavailable(e.getErrorDescription() + " (error " + e.getApiErrorCode() + ')')
          : noStream();
    } catch (IOException | RuntimeException e) {
      return jetStreamUnavailable(String.valueOf(e.getMessage()));
    }
  }
}
