package dev.outbox.servicebus.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.DivertConfiguration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ActiveMQServers;
import org.apache.activemq.artemis.core.server.ComponentConfigurationRoutingType;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.MessageReference;
import org.apache.activemq.artemis.core.server.impl.AddressInfo;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.protocol.amqp.broker.AMQPMessage;
import org.apache.activemq.artemis.utils.collections.LinkedListIterator;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Data;

/**
 * A local AMQP 1.0 broker the Azure SDK talks to as if it were a Service Bus namespace: Apache
 * ActiveMQ Artemis embedded in the test JVM, one AMQP acceptor on 127.0.0.1, persistent (so a
 * restart keeps what was stored), no auto-created destinations (a missing entity is unroutable),
 * the {@link ServiceBusEmulationPlugin} (which checks the shared access signature the SDK presents
 * against {@link #KEY}). Queues are ANYCAST addresses; a topic is a MULTICAST address with a divert
 * per subscription into the ANYCAST queue {@code <topic>/subscriptions/<name>}.
 *
 * <p>Not emulated: peek-lock settlement, sessions, scheduling, duplicate detection, partitioning,
 * management operations. Receive in {@code RECEIVE_AND_DELETE} mode.
 */
public final class LocalServiceBus implements AutoCloseable {

  /** The advertised max-message-size by default: Service Bus Standard's 256 KB. */
  public static final long STANDARD_MAX_MESSAGE_SIZE = 256 * 1024;

  /** The name of the namespace's shared access key, as in its connection string. */
  public static final String KEY_NAME = "RootManageSharedAccessKey";

  /** The namespace's shared access key: a token signed with any other is refused. */
  public static final String KEY = "SAS_KEY_VALUE";

  private static final Symbol PARTITION_KEY = Symbol.valueOf("x-opt-partition-key");

  private final int port;
  private final Path dataDirectory;
  private final Map<String, List<String>> topics = new LinkedHashMap<>();
  private final List<String> queues = new ArrayList<>();
  private final ServiceBusEmulationPlugin plugin;
  private ActiveMQServer server;

  private LocalServiceBus(int port, long maxMessageSize) {
    this.port = port;
    this.plugin = new ServiceBusEmulationPlugin(maxMessageSize, KEY_NAME, KEY);
    try {
      this.dataDirectory = Files.createTempDirectory("local-servicebus");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts a broker on a free port.
   *
   * @param maxMessageSize the max-message-size advertised on every link
   * @return the running broker
   */
  public static LocalServiceBus start(long maxMessageSize) {
    LocalServiceBus bus = new LocalServiceBus(freePort(), maxMessageSize);
    bus.startServer();
    return bus;
  }

  /**
   * The connection string of the Service Bus emulator form that SDK 7.17.8+ accepts for plain AMQP.
   *
   * @return the connection string
   */
  public String connectionString() {
    return connectionString(port);
  }

  /**
   * The same form for any local port.
   *
   * @param port the port
   * @return the connection string
   */
  public static String connectionString(int port) {
    return connectionString(port, KEY);
  }

  /**
   * The same form with a key of the caller's: with any but {@link #KEY}, the namespace refuses the
   * credentials (the {@code $cbs} put-token answers 401 {@code InvalidSignature}, as Service Bus
   * does).
   *
   * @param port the port
   * @param key the {@code SharedAccessKey}
   * @return the connection string
   */
  public static String connectionString(int port, String key) {
    return "Endpoint=sb://127.0.0.1:"
        + port
        + ";SharedAccessKeyName="
        + KEY_NAME
        + ";SharedAccessKey="
        + key
        + ";UseDevelopmentEmulator=true;";
  }

  /**
   * Creates a queue.
   *
   * @param name the queue name
   */
  public synchronized void createQueue(String name) {
    queues.add(name);
    declareQueue(name);
  }

  /**
   * Creates a topic with subscriptions.
   *
   * @param name the topic name
   * @param subscriptions the subscription names
   */
  public synchronized void createTopic(String name, String... subscriptions) {
    topics.put(name, List.of(subscriptions));
    declareTopic(name, List.of(subscriptions));
  }

  /**
   * The entity path of a subscription, as the SDK's receiver uses it.
   *
   * @param topic the topic
   * @param subscription the subscription
   * @return {@code <topic>/subscriptions/<subscription>}
   */
  public static String subscriptionPath(String topic, String subscription) {
    return topic + "/subscriptions/" + subscription;
  }

  /**
   * How many batch transfers (several messages in one transfer) the broker split so far.
   *
   * @return the count
   */
  public long batchTransfers() {
    return plugin.batchTransfers();
  }

  /**
   * How many messages a queue holds now.
   *
   * @param queue the queue's name
   * @return the count
   */
  public synchronized long messageCount(String queue) {
    return server.locateQueue(SimpleString.of(queue)).getMessageCount();
  }

  /**
   * A message as the broker stored it: what an outage test checks, with no receiver in between.
   *
   * @param messageId the AMQP message-id
   * @param partitionKey the {@code x-opt-partition-key} annotation, or {@code null}
   * @param body the first data section
   */
  public record StoredMessage(String messageId, String partitionKey, byte[] body) {}

  /**
   * The messages a queue holds now, in queue order, read inside the broker. Receiving them in
   * {@code RECEIVE_AND_DELETE} mode (the only one emulated) can lose what a receiver had
   * prefetched; reading the store cannot.
   *
   * @param queue the queue's name
   * @return the messages, left in the queue
   */
  public synchronized List<StoredMessage> storedMessages(String queue) {
    List<StoredMessage> stored = new ArrayList<>();
    try (LinkedListIterator<MessageReference> references =
        server.locateQueue(SimpleString.of(queue)).browserIterator()) {
      while (references.hasNext()) {
        stored.add(decode((AMQPMessage) references.next().getMessage()));
      }
    }
    return stored;
  }

  private static StoredMessage decode(AMQPMessage stored) {
    byte[] bytes = ServiceBusEmulationPlugin.encoded(stored);
    org.apache.qpid.proton.message.Message message =
        org.apache.qpid.proton.message.Message.Factory.create();
    message.decode(bytes, 0, bytes.length);
    Object key =
        message.getMessageAnnotations() == null
            ? null
            : message.getMessageAnnotations().getValue().get(PARTITION_KEY);
    Binary body = ((Data) message.getBody()).getValue();
    return new StoredMessage(
        String.valueOf(message.getMessageId()),
        key == null ? null : key.toString(),
        java.util.Arrays.copyOfRange(
            body.getArray(), body.getArrayOffset(), body.getArrayOffset() + body.getLength()));
  }

  /** Stops the broker, as an outage: clients lose their connections. */
  public synchronized void stop() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Starts it again on the same port with what it had stored. */
  public synchronized void restart() {
    startServer();
  }

  /**
   * The port of the AMQP acceptor.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /** Stops the broker and deletes its data directory. */
  @Override
  public synchronized void close() {
    if (server != null && server.isStarted()) {
      stop();
    }
    try (java.util.stream.Stream<Path> files = Files.walk(dataDirectory)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temp directory is harmless
    }
  }

  private void startServer() {
    try {
      server = ActiveMQServers.newActiveMQServer(configuration(), true);
      server.start();
      queues.forEach(this::declareQueue);
      topics.forEach(this::declareTopic);
    } catch (Exception e) {
      throw new IllegalStateException("Could not start the local broker on port " + port, e);
    }
  }

  private Configuration configuration() throws Exception {
    ConfigurationImpl config = new ConfigurationImpl();
    config.setName("local-servicebus");
    config.setPersistenceEnabled(true);
    config.setJournalType(JournalType.NIO);
    config.setJournalDirectory(dataDirectory.resolve("journal").toString());
    config.setBindingsDirectory(dataDirectory.resolve("bindings").toString());
    config.setPagingDirectory(dataDirectory.resolve("paging").toString());
    config.setLargeMessagesDirectory(dataDirectory.resolve("large").toString());
    // Service Bus has stored a message when it accepts it; so must this broker, or an outage test
    // loses messages the outbox rightly counted as published.
    config.setJournalSyncNonTransactional(true);
    config.setJournalSyncTransactional(true);
    config.setSecurityEnabled(false);
    config.setJMXManagementEnabled(false);
    config.addAcceptorConfiguration(
        "amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP;amqpMinLargeMessageSize=16777216");
    config.addAddressSetting(
        "#",
        new AddressSettings()
            .setAutoCreateAddresses(false)
            .setAutoCreateQueues(false)
            .setAutoDeleteAddresses(false)
            .setAutoDeleteQueues(false));
    config.registerBrokerPlugin(plugin);
    return config;
  }

  private void declareQueue(String name) {
    try {
      if (server.getAddressInfo(SimpleString.of(name)) == null) {
        server.addAddressInfo(new AddressInfo(SimpleString.of(name), RoutingType.ANYCAST));
      }
      server.createQueue(
          QueueConfiguration.of(name)
              .setAddress(name)
              .setRoutingType(RoutingType.ANYCAST)
              .setDurable(true),
          true);
    } catch (Exception e) {
      throw new IllegalStateException("Could not create queue " + name, e);
    }
  }

  private void declareTopic(String name, List<String> subscriptions) {
    try {
      if (server.getAddressInfo(SimpleString.of(name)) == null) {
        server.addAddressInfo(new AddressInfo(SimpleString.of(name), RoutingType.MULTICAST));
      }
      for (String subscription : subscriptions) {
        String path = subscriptionPath(name, subscription);
        declareQueue(path);
        String divert = name + "->" + subscription;
        if (server.getPostOffice().getBinding(SimpleString.of(divert)) == null) {
          server.deployDivert(
              new DivertConfiguration()
                  .setName(divert)
                  .setAddress(name)
                  .setForwardingAddress(path)
                  .setExclusive(false)
                  .setRoutingType(ComponentConfigurationRoutingType.ANYCAST));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("Could not create topic " + name, e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
