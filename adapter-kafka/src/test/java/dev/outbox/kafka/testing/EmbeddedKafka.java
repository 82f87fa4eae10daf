package dev.outbox.kafka.testing;

import dev.outbox.testkit.TcpProxy;
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
 * <p>Two more listeners on the same broker, on request ({@link #builder()}):
 *
 * <ul>
 *   <li>{@linkplain Builder#proxied() proxied}: a listener whose advertised address is a {@link
 *       TcpProxy}'s port. Kafka clients connect to the advertised address of the listener they
 *       bootstrapped from, so a client of {@link #proxiedBootstrapServers()} sends everything
 *       through the proxy, and {@link TcpProxy#down()} takes the broker away from it alone.
 *   <li>{@linkplain Builder#saslUser(String, String) SASL}: a {@code SASL_PLAINTEXT} listener with
 *       the {@code PLAIN} mechanism and one user, to test refused credentials ({@link
 *       #saslBootstrapServers()}, {@link #saslProperties(String, String)}).
 * </ul>
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

  private static final String SASL_MECHANISM = "PLAIN";

  private final Path logDir;
  private final int port;
  private final TcpProxy proxy;
  private final int saslPort;
  private final KafkaConfig config;
  private KafkaRaftServer server;

  private EmbeddedKafka(Path logDir, Builder builder) throws IOException {
    this.logDir = logDir;
    this.port = freePort();
    int controllerPort = freePort();
    Properties props = properties(logDir, port, controllerPort);
    if (builder.proxied) {
      // The proxy first, on a port of its own, so that the broker can advertise that port.
      int proxiedPort = freePort();
      this.proxy = new TcpProxy("127.0.0.1", proxiedPort);
      addListener(props, "PROXIED", "PLAINTEXT", proxiedPort, proxy.port());
    } else {
      this.proxy = null;
    }
    if (builder.saslUser != null) {
      this.saslPort = freePort();
      addListener(props, "SASL", "SASL_PLAINTEXT", saslPort, saslPort);
      props.put("sasl.enabled.mechanisms", SASL_MECHANISM);
      props.put("listener.name.sasl.sasl.enabled.mechanisms", SASL_MECHANISM);
      props.put(
          "listener.name.sasl.plain.sasl.jaas.config",
          "org.apache.kafka.common.security.plain.PlainLoginModule required"
              + " user_"
              + builder.saslUser
              + "=\""
              + builder.saslPassword
              + "\";");
    } else {
      this.saslPort = -1;
    }
    this.config = new KafkaConfig(props);
  }

  /**
   * Formats a fresh log directory and starts a broker on free ports, with its plaintext listener
   * only.
   *
   * @return the running broker
   */
  public static EmbeddedKafka start() {
    return builder().start();
  }

  /**
   * A broker with more listeners than the plaintext one.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Chooses the listeners of a broker before it starts. */
  public static final class Builder {
    private boolean proxied;
    private String saslUser;
    private String saslPassword;

    private Builder() {}

    /**
     * Adds a listener that clients reach only through a {@link TcpProxy}: see {@link #proxy()}.
     *
     * @return this builder
     */
    public Builder proxied() {
      this.proxied = true;
      return this;
    }

    /**
     * Adds a {@code SASL_PLAINTEXT} listener with the {@code PLAIN} mechanism and this one user.
     *
     * @param user the user name
     * @param password its password
     * @return this builder
     */
    public Builder saslUser(String user, String password) {
      this.saslUser = user;
      this.saslPassword = password;
      return this;
    }

    /**
     * Formats a fresh log directory and starts the broker on free ports.
     *
     * @return the running broker
     */
    public EmbeddedKafka start() {
      EmbeddedKafka kafka = null;
      try {
        kafka = new EmbeddedKafka(Files.createTempDirectory("outbox-kafka-"), this);
        kafka.format();
        kafka.startServer();
        return kafka;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (RuntimeException e) {
        if (kafka != null) {
          kafka.close();
        }
        throw e;
      }
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
   * Where clients connect to reach the broker through {@link #proxy()}: the proxy's port, which the
   * proxied listener also advertises.
   *
   * @return {@code 127.0.0.1:<proxy port>}
   * @throws IllegalStateException when the broker was built without {@link Builder#proxied()}
   */
  public String proxiedBootstrapServers() {
    return "127.0.0.1:" + proxy().port();
  }

  /**
   * The proxy every connection of a client of {@link #proxiedBootstrapServers()} passes through:
   * {@link TcpProxy#down()} takes the broker away from those clients alone. Closed with the broker.
   *
   * @return the proxy
   * @throws IllegalStateException when the broker was built without {@link Builder#proxied()}
   */
  public TcpProxy proxy() {
    if (proxy == null) {
      throw new IllegalStateException("this broker has no proxied listener: build it proxied()");
    }
    return proxy;
  }

  /**
   * Where clients connect to the SASL listener.
   *
   * @return {@code 127.0.0.1:<SASL port>}
   * @throws IllegalStateException when the broker was built without {@link Builder#saslUser}
   */
  public String saslBootstrapServers() {
    if (saslPort < 0) {
      throw new IllegalStateException("this broker has no SASL listener: build it with saslUser()");
    }
    return "127.0.0.1:" + saslPort;
  }

  /**
   * The producer properties of a client of the SASL listener.
   *
   * @param user the user name
   * @param password the password it presents
   * @return {@code security.protocol}, {@code sasl.mechanism} and {@code sasl.jaas.config}
   */
  public static Map<String, String> saslProperties(String user, String password) {
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        SASL_MECHANISM,
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + user
            + "\" password=\""
            + password
            + "\";");
  }

  /**
   * Creates a topic with topic configurations and waits until the broker has it.
   *
   * @param name the topic
   * @param partitions how many partitions
   * @param configs topic configurations, for example {@code max.message.bytes}
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      awaitLeaders(admin, name);
    } catch (Exception e) {
      throw new IllegalStateException("Could not create topic " + name + ": " + e, e);
    }
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
    createTopic(name, partitions, Map.of());
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

  /** Stops the broker and its proxy, and deletes its data. */
  @Override
  public synchronized void close() {
    stop();
    if (proxy != null) {
      proxy.close();
    }
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

  /** Adds a listener named {@code name} on {@code port}, advertised on {@code advertisedPort}. */
  private static void addListener(
      Properties props, String name, String protocol, int port, int advertisedPort) {
    props.put("listeners", props.get("listeners") + "," + name + "://127.0.0.1:" + port);
    props.put(
        "advertised.listeners",
        props.get("advertised.listeners") + "," + name + "://127.0.0.1:" + advertisedPort);
    props.put(
        "listener.security.protocol.map",
        props.get("listener.security.protocol.map") + "," + name + ":" + protocol);
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
