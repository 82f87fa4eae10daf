package dev.outbox.kafka.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process) inside the
 * test JVM, on 127.0.0.1 and a free port, with its log in a temporary directory. Topics are never
 * created on their own ({@code auto.create.topics.enable=false}): {@link #createTopic} them.
 *
 * <p>{@link #stop()} and {@link #restart()} keep the port and the data, so a test can take the
 * broker away and bring it back as an outage would. {@link #close()} stops it and deletes the data.
 * Starting takes about two seconds.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
 *   kafka.createTopic("orders", 3);
 *   ... KafkaPublisherOptions.builder().bootstrapServers(kafka.bootstrapServers()) ...
 * }
 * }</pre>
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final Path logDir;
  private final int port;
  private final KafkaConfig config;
  private KafkaRaftServer server;

  private EmbeddedKafka(Path logDir, int port, int controllerPort) {
    this.logDir = logDir;
    this.port = port;
    this.config = new KafkaConfig(properties(logDir, port, controllerPort));
  }

  /**
   * Formats a fresh log directory and starts a broker on free ports.
   *
   * @return the running broker
   */
  public static EmbeddedKafka start() {
    try {
      Path logDir = Files.createTempDirectory("outbox-kafka-");
      EmbeddedKafka kafka = new EmbeddedKafka(logDir, freePort(), freePort());
      kafka.format();
      kafka.startServer();
      return kafka;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Where clients connect.
   *
   * @return {@code 127.0.0.1:<port>}
   */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /**
   * Whether the broker runs.
   *
   * @return {@code false} after {@link #stop()} until {@link #start()}
   */
  public synchronized boolean isRunning() {
    return server != null;
  }

  /** Starts the stopped broker again, on the same port with the same data. */
  public synchronized void restart() {
    if (server == null) {
      startServer();
    }
  }

  /** Stops the broker, keeping its port and data for {@link #restart()}. */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /**
   * Creates a topic and waits until the broker has it.
   *
   * @param name the topic
   * @param partitions how many partitions
   */
  public void createTopic(String name, int partitions) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      awaitLeaders(admin, name);
    } catch (Exception e) {
      throw new IllegalStateException("Could not create topic " + name + ": " + e, e);
    }
  }

  /** Right after creation the broker may not know the topic yet, or not have its leaders. */
  private static void awaitLeaders(Admin admin, String topic) throws Exception {
    long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription description =
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        if (description.partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("Topic " + topic + " has partitions without a leader");
  }

  /**
   * An admin client on this broker; the caller closes it.
   *
   * @return a new admin client
   */
  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) ADMIN_TIMEOUT.toMillis()));
  }

  /** Stops the broker and deletes its data. */
  @Override
  public synchronized void close() {
    stop();
    try (Stream<Path> files = Files.walk(logDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }

  private synchronized void startServer() {
    KafkaRaftServer started = new KafkaRaftServer(config, Time.SYSTEM);
    started.startup();
    server = started;
    awaitReady();
  }

  private void awaitReady() {
    try (Admin admin = admin()) {
      admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("Kafka did not come up at " + bootstrapServers(), e);
    }
  }

  private void format() {
    try {
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setDirectories(Set.of(logDir.toString()))
          .setMetadataLogDirectory(logDir.toString())
          .setControllerListenerName("CONTROLLER")
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("Could not format the Kafka log directory " + logDir, e);
    }
  }

  private static Properties properties(Path logDir, int port, int controllerPort) {
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("log.dirs", logDir.toString());
    props.put("auto.create.topics.enable", "false");
    props.put("num.partitions", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("log.flush.interval.messages", "1000000");
    return props;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
