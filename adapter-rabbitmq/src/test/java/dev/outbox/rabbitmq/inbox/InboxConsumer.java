package dev.outbox.rabbitmq.inbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.IncomingMessage;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxResult;
import dev.outbox.rabbitmq.RabbitMqIncoming;
import dev.outbox.testkit.kill.ChildJvm;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;

/**
 * The consumer JVM of {@link dev.outbox.rabbitmq.RabbitMqInboxKillIT}, a child of its {@link
 * dev.outbox.testkit.kill.JvmFleet}: consumes the test's queue with manual acknowledgement and a
 * prefetch, and applies every delivery through an {@link Inbox} on the test's tables (created by
 * the test, never by this process), until it is killed.
 *
 * <p>For each delivery: {@code inbox.receive(RabbitMqIncoming.of(delivery), handler)}, where the
 * handler, on the inbox's connection and in its transaction, increments the aggregate's {@code
 * applied_count}, sets its {@code last_seq} and inserts a row into the applied log; then {@code
 * basicAck} when the outcome is APPLIED or DUPLICATE, and {@code basicNack} with requeue after a
 * short pause on a GAP, so that the broker delivers the message again (possibly reordered). A
 * delivery the inbox fails on is nacked the same way.
 *
 * <p>Standard output, one line each, for the test to read: {@value #READY} once consuming, and
 * {@code OUTCOME DUPLICATE|GAP|FAILED ...}, and {@value #OUT_OF_ORDER} when the handler finds the
 * aggregate's {@code last_seq} not at the message's seq - 1 (the inbox let a message through before
 * the one it follows). A SIGTERM closes the connection in a shutdown hook (the broker requeues what
 * is unacknowledged); a SIGKILL gives it no chance to.
 *
 * <p>Arguments: instance id, queue, schema ({@link KillTables}), inbox source, prefetch, pause
 * before a nack in milliseconds.
 */
public final class InboxConsumer {

  /** Printed on standard output once the consumer is registered with the broker. */
  public static final String READY = "CONSUMER READY";

  /** The start of the line printed for each outcome other than APPLIED. */
  public static final String OUTCOME = "OUTCOME ";

  /** The start of the line printed when the handler finds the aggregate out of order. */
  public static final String OUT_OF_ORDER = "OUT OF ORDER ";

  private final String instanceId;
  private final KillTables tables;
  private final Inbox inbox;
  private final Channel channel;
  private final long nackPauseMillis;

  private InboxConsumer(
      String instanceId, KillTables tables, Inbox inbox, Channel channel, long nackPauseMillis) {
    this.instanceId = instanceId;
    this.tables = tables;
    this.inbox = inbox;
    this.channel = channel;
    this.nackPauseMillis = nackPauseMillis;
  }

  /**
   * Runs the consumer until the process ends.
   *
   * @param args see the class comment
   * @throws Exception when it cannot connect; the process then exits with a stack trace
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException(
          "usage: instanceId queue schema source prefetch nackPauseMillis, but got "
              + args.length
              + " arguments");
    }
    String instanceId = args[0];
    String queue = args[1];
    KillTables tables = new KillTables(args[2]);
    ChildJvm.exitWithParent();

    HikariDataSource dataSource = KillTables.pool(instanceId, 2);
    Inbox inbox =
        Inbox.create(
            dataSource,
            InboxOptions.builder()
                .source(args[3])
                .positionsTable(tables.positionsTable())
                .receivedIdsTable(tables.receivedIdsTable())
                .build());
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    factory.setAutomaticRecoveryEnabled(false);
    Connection connection = factory.newConnection(instanceId);
    Channel channel = connection.createChannel();
    channel.basicQos(Integer.parseInt(args[4]));
    InboxConsumer consumer =
        new InboxConsumer(instanceId, tables, inbox, channel, Long.parseLong(args[5]));

    CountDownLatch closed = new CountDownLatch(1);
    connection.addShutdownListener(
        cause -> {
          if (!cause.isInitiatedByApplication()) {
            // Lost the broker: end, so that the test sees a consumer that died on its own.
            System.out.println("CONNECTION LOST " + cause.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(2);
          }
        });
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    connection.close(2_000);
                  } catch (IOException | RuntimeException e) {
                    System.out.println("CLOSE FAILED " + e);
                  }
                  inbox.close();
                  dataSource.close();
                  System.out.println("CONSUMER CLOSED " + instanceId);
                  System.out.flush();
                  closed.countDown();
                },
                "close-" + instanceId));
    channel.basicConsume(
        queue,
        false,
        instanceId,
        (tag, delivery) -> {
          try {
            consumer.deliver(delivery);
          } catch (Throwable e) {
            if (!channel.isOpen()) {
              return; // closing on SIGTERM: the broker requeues the delivery
            }
            // The client would close the channel and leave this process idle: end it instead, so
            // that the test sees a consumer that died on its own.
            System.out.println("CONSUMER FAILED " + e);
            e.printStackTrace(System.out);
            System.out.flush();
            Runtime.getRuntime().halt(2);
          }
        },
        tag -> {});
    ChildJvm.printReady(READY, instanceId, "");
    closed.await();
  }

  /** Applies one delivery and acknowledges it, or hands it back to the broker. */
  private void deliver(Delivery delivery) throws IOException {
    long tag = delivery.getEnvelope().getDeliveryTag();
    boolean redelivered = delivery.getEnvelope().isRedeliver();
    IncomingMessage message = RabbitMqIncoming.of(delivery);
    InboxResult result;
    try {
      result = inbox.receive(message, (connection, m) -> apply(connection, m, redelivered));
    } catch (RuntimeException e) {
      print("FAILED", message, redelivered, e.toString());
      nackAfterPause(tag);
      return;
    }
    switch (result.outcome()) {
      case APPLIED -> channel.basicAck(tag, false);
      case DUPLICATE -> {
        print("DUPLICATE", message, redelivered, "position " + result.seqBefore());
        channel.basicAck(tag, false);
      }
      case GAP -> {
        print("GAP", message, redelivered, "position " + result.seqBefore());
        nackAfterPause(tag);
      }
    }
  }

  /**
   * The handler: the message's effect and its line in the applied log, on the inbox's connection.
   */
  private void apply(java.sql.Connection connection, IncomingMessage message, boolean redelivered)
      throws SQLException {
    String aggregateId = message.aggregateId();
    long seq = message.seq();
    int inOrder;
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE "
                + tables.effects()
                + " SET applied_count = applied_count + 1, last_seq = ?"
                + " WHERE aggregate_id = ? AND last_seq = ?")) {
      update.setLong(1, seq);
      update.setString(2, aggregateId);
      update.setLong(3, seq - 1);
      inOrder = update.executeUpdate();
    }
    if (inOrder == 0) {
      // Record the effect all the same: the test's checks name what went wrong.
      System.out.println(OUT_OF_ORDER + aggregateId + " seq " + seq + " id " + message.id());
      System.out.flush();
      try (PreparedStatement update =
          connection.prepareStatement(
              "UPDATE "
                  + tables.effects()
                  + " SET applied_count = applied_count + 1, last_seq = ? WHERE aggregate_id = ?")) {
        update.setLong(1, seq);
        update.setString(2, aggregateId);
        update.executeUpdate();
      }
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + tables.appliedLog()
                + " (aggregate_id, seq, message_id, consumer, redelivered) VALUES (?, ?, ?, ?, ?)")) {
      insert.setString(1, aggregateId);
      insert.setLong(2, seq);
      insert.setString(3, message.id());
      insert.setString(4, instanceId);
      insert.setBoolean(5, redelivered);
      insert.executeUpdate();
    }
  }

  /** Waits a little, so that the messages before it can be applied, and requeues the delivery. */
  private void nackAfterPause(long tag) throws IOException {
    try {
      Thread.sleep(nackPauseMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    channel.basicNack(tag, false, true);
  }

  private static void print(
      String outcome, IncomingMessage message, boolean redelivered, String detail) {
    System.out.println(
        OUTCOME
            + outcome
            + " "
            + message.aggregateId()
            + " seq "
            + message.seq()
            + " redelivered "
            + redelivered
            + " "
            + detail
            + " id "
            + message.id());
    System.out.flush();
  }
}
