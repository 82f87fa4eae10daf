package dev.outbox.testkit;

/**
 * Takes a broker away from a publisher and brings it back, as an outage would, without touching a
 * shared broker: a {@link TcpProxy} in front of it does so for a real one.
 */
public interface BrokerSwitch {

  /** Cuts every connection to the broker and refuses new ones until {@link #up()}. */
  void down();

  /** Lets connections to the broker through again. */
  void up();
}
