package dev.outbox.samples.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one) inside this JVM, on
 * 127.0.0.1 and free ports, with its log in a temporary directory deleted by {@link #close()}.
 * Topics are not created on their own. Starting takes a few seconds.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

  private final Path logDir;
  private final int port;
  private final KafkaRaftServer server;

  private EmbeddedKafkaBroker(Path logDir, int port, KafkaRaftServer server) {
    this.logDir = logDir;
    this.port = port;
    this.server = server;
  }

  /**
   * Formats a fresh log directory and starts the broker.
   *
   * @return the running broker; clients still wait for it to answer (the admin client does)
   */
  public static EmbeddedKafkaBroker start() {
    try {
      Path logDir = Files.createTempDirectory("outbox-sample-kafka-");
      int port = freePort();
      int controllerPort = freePort();
      format(logDir);
      KafkaRaftServer server =
          new KafkaRaftServer(
              new KafkaConfig(properties(logDir, port, controllerPort)), Time.SYSTEM);
      server.startup();
      return new EmbeddedKafkaBroker(logDir, port, server);
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

  /** Stops the broker and deletes its data. */
  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
    try (Stream<Path> files = Files.walk(logDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }

  private static void format(Path logDir) {
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
    return props;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
