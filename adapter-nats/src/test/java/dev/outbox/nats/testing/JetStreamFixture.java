package dev.outbox.nats.testing;

import dev.outbox.testkit.RequiredServer;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The tests' own connection to a JetStream server: creates streams with unique names and subjects,
 * reads them back with a pull consumer, and deletes every stream it created on {@link #close()}.
 */
public final class JetStreamFixture implements AutoCloseable {

  /** The development and CI server. */
  public static final String URL = "nats://127.0.0.1:4222";

  /** How to start it. */
  public static final String HOW_TO_START =
      "/usr/sbin/nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server"
          + " -l /var/log/nats-server.log &";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Connection connection;
  private final JetStream jetStream;
  private final JetStreamManagement management;
  private final Set<String> created = ConcurrentHashMap.newKeySet();

  private JetStreamFixture(String url) throws IOException, InterruptedException {
    connection =
        Nats.connect(new Options.Builder().server(url).connectionName("outbox-tests").build());
    jetStream = connection.jetStream();
    management = connection.jetStreamManagement();
  }

  /**
   * Connects to the local server; skips the test (fails it when CI=true) when it is not running.
   *
   * @return the fixture
   * @throws Exception when connecting fails
   */
  public static JetStreamFixture local() throws Exception {
    RequiredServer.assumeReachable("NATS with JetStream", "127.0.0.1", 4222, HOW_TO_START);
    return new JetStreamFixture(URL);
  }

  /**
   * Connects to any server.
   *
   * @param url its URL
   * @return the fixture
   * @throws Exception when connecting fails
   */
  public static JetStreamFixture at(String url) throws Exception {
    return new JetStreamFixture(url);
  }

  /**
   * A unique lower-case token for subjects and names.
   *
   * @param purpose a short word
   * @return for example {@code dedup-1a2b3c4d}
   */
  public static String unique(String purpose) {
    byte[] bytes = new byte[4];
    RANDOM.nextBytes(bytes);
    return purpose + "-" + HexFormat.of().formatHex(bytes);
  }

  /**
   * Creates a file stream; {@link #close()} deletes it.
   *
   * @param name the stream name
   * @param subjects its subjects
   * @return the stream name
   * @throws Exception when the server refuses
   */
  public String createStream(String name, String... subjects) throws Exception {
    management.addStream(
        StreamConfiguration.builder()
            .name(name)
            .subjects(subjects)
            .storageType(StorageType.File)
            .duplicateWindow(Duration.ofMinutes(2))
            .build());
    created.add(name);
    return name;
  }

  /**
   * Creates a file stream that refuses every message larger than {@code maxMessageSize} bytes (its
   * {@code max_msg_size}); {@link #close()} deletes it.
   *
   * @param name the stream name
   * @param maxMessageSize the largest message it stores
   * @param subjects its subjects
   * @return the stream name
   * @throws Exception when the server refuses
   */
  public String createStreamWithMaxMessageSize(String name, int maxMessageSize, String... subjects)
      throws Exception {
    management.addStream(
        StreamConfiguration.builder()
            .name(name)
            .subjects(subjects)
            .storageType(StorageType.File)
            .duplicateWindow(Duration.ofMinutes(2))
            .maximumMessageSize(maxMessageSize)
            .build());
    created.add(name);
    return name;
  }

  /**
   * Forgets a stream, so that {@link #close()} leaves it on the server.
   *
   * @param name the stream name
   */
  public void keep(String name) {
    created.remove(name);
  }

  /**
   * Remembers a stream someone else created, so that {@link #close()} deletes it.
   *
   * @param name the stream name
   */
  public void deleteOnClose(String name) {
    created.add(name);
  }

  /**
   * The stream's info.
   *
   * @param name the stream name
   * @return its info
   * @throws Exception when it does not exist
   */
  public StreamInfo info(String name) throws Exception {
    return management.getStreamInfo(name);
  }

  /**
   * Reads up to {@code count} messages of a stream from its start, with an ephemeral pull consumer.
   *
   * @param stream the stream
   * @param subject the filter subject
   * @param count how many to wait for
   * @param timeout how long to wait at most
   * @return the messages in stream order
   * @throws Exception when the server fails
   */
  public List<Message> read(String stream, String subject, int count, Duration timeout)
      throws Exception {
    JetStreamSubscription subscription =
        jetStream.subscribe(subject, PullSubscribeOptions.builder().stream(stream).build());
    List<Message> messages = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (messages.size() < count && System.nanoTime() < deadline) {
        int batch = Math.min(500, count - messages.size());
        for (Message message : subscription.fetch(batch, Duration.ofMillis(500))) {
          message.ack();
          messages.add(message);
        }
      }
    } finally {
      subscription.unsubscribe();
    }
    return messages;
  }

  /**
   * Receives a stream's messages from its start, in stream order, with an ordered push consumer,
   * until the returned handle is closed.
   *
   * @param stream the stream
   * @param subject the filter subject
   * @param handler called for each message on the fixture's dispatcher thread, one at a time
   * @return what stops receiving
   * @throws Exception when the server fails
   */
  public AutoCloseable follow(String stream, String subject, Consumer<Message> handler)
      throws Exception {
    Dispatcher dispatcher = connection.createDispatcher();
    jetStream.subscribe(
        subject,
        dispatcher,
        handler::accept,
        false,
        PushSubscribeOptions.builder().stream(stream).ordered(true).build());
    return () -> connection.closeDispatcher(dispatcher);
  }

  /**
   * How many messages a stream holds.
   *
   * @param stream the stream
   * @return the count
   * @throws Exception when it does not exist
   */
  public long count(String stream) throws Exception {
    return info(stream).getStreamState().getMsgCount();
  }

  /**
   * Deletes a stream now and closes this fixture.
   *
   * @param name the stream name
   * @throws Exception when the server refuses
   */
  public void closeAfterDeleting(String name) throws Exception {
    try {
      management.deleteStream(name);
    } finally {
      close();
    }
  }

  /** Deletes every stream created here and closes the connection. */
  @Override
  public void close() {
    for (String name : created) {
      try {
        management.deleteStream(name);
      } catch (IOException | JetStreamApiException e) {
        // already gone
      }
    }
    created.clear();
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
