package dev.outbox.benchmarks.internal;

import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.TcpProxy;

/**
 * A broker that a publisher can reach through a {@link TcpProxy} of the benchmark's own, so that
 * {@link OutageRecovery} can take it away ({@link TcpProxy#down()}) and bring it back ({@link
 * TcpProxy#up()}) without touching the broker itself: Kafka in this JVM ({@link KafkaBench}), the
 * shared RabbitMQ ({@link RabbitBench}) and NATS ({@link NatsBench}) servers, which keep running.
 */
public interface ProxiedBroker {

  /**
   * The name the figures carry.
   *
   * @return {@code kafka}, {@code rabbitmq} or {@code nats}
   */
  String name();

  /**
   * The aggregate type of the backlog, which routes it to this broker's topic, exchange or stream.
   *
   * @return the type
   */
  String aggregateType();

  /**
   * The proxy in front of the broker; up unless a benchmark took it down.
   *
   * @return the proxy
   */
  TcpProxy proxy();

  /**
   * A new adapter publisher that reaches the broker through {@link #proxy()} only, with the
   * adapter's default options otherwise.
   *
   * @return the publisher
   */
  EventPublisher publisherThroughProxy();

  /** Empties what the broker kept of the last run (nothing to do where nothing accumulates). */
  void purge();
}
