package dev.outbox.benchmarks.internal;

import dev.outbox.spi.EventPublisher;

/**
 * A broker on 127.0.0.1 whose relay is measured against its bare client's ceiling: what {@link
 * ThroughputSuite#brokerRelay} needs of RabbitMQ and NATS.
 */
public interface BareClientBroker {

  /**
   * The name the figures carry: {@code <name>_ceiling_msgs_per_s}, {@code relay_<name>_...}.
   *
   * @return for example {@code rabbitmq}
   */
  String name();

  /**
   * How the ceiling is measured, for the table's "what bounds it" column.
   *
   * @return one line
   */
  String ceilingBound();

  /**
   * The aggregate type of the relay's backlog.
   *
   * @return the type
   */
  String aggregateType();

  /**
   * The bare client's ceiling.
   *
   * @param messages how many
   * @param aggregates over how many aggregates
   * @return messages per second
   */
  double ceiling(int messages, int aggregates);

  /**
   * A new adapter publisher.
   *
   * @return the publisher
   */
  EventPublisher publisher();

  /** Empties what the broker kept of the last run. */
  void purge();
}
