package dev.outbox;

/**
 * Who carries the outbox's messages to the broker.
 *
 * @see OutboxOptions#deliveryMode()
 */
public enum DeliveryMode {

  /**
   * The outbox's own processor claims the messages, publishes them through the {@link
   * dev.outbox.spi.EventPublisher} and records each outcome; cleanup deletes what was delivered.
   */
  POLLING,

  /**
   * Change data capture: Debezium's outbox event router reads the inserted rows from the database's
   * log and Kafka Connect publishes them. The outbox runs no processor and no publisher; its
   * cleanup deletes rows by age ({@link OutboxOptions#retention()} after they were written), and
   * dead letters are not made. PostgreSQL only (logical replication with {@code pgoutput}).
   */
  CDC
}
