package dev.outbox.samples.brokers;

import com.google.inject.Module;
import java.util.function.Consumer;

/**
 * A broker as the demo uses it. {@link Brokers#open} checks the server and declares this run's
 * destination; {@link #close()} deletes it again.
 */
public interface Broker extends AutoCloseable {

  /**
   * Where the events go, for the demo's output.
   *
   * @return for example {@code kafka topic outbox-sample-1a2b3c-Order at 127.0.0.1:40123}
   */
  String description();

  /**
   * The adapter's Guice module, configured for this run's destination.
   *
   * @return the module that binds the {@code EventPublisher}
   */
  Module publisherModule();

  /**
   * Starts consuming this run's destination with the broker's own client.
   *
   * @param sink called for every message, from the consumer's thread
   */
  void startConsumer(Consumer<ReceivedEvent> sink);

  /** Stops the consumer, deletes what was declared and closes the connections. Never throws. */
  @Override
  void close();
}
