package dev.outbox.kafka.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what a publish call appended right away and together: asks the producer to flush, on a
 * thread of its own. Without it, with {@code linger.ms=0} the producer's sender takes the first
 * record of a call alone and, with one request in flight, the rest one broker round trip later;
 * with a linger, every call waits for it. While a flush runs, the producer sends every record as
 * soon as it is appended.
 *
 * <p>{@code flush()} has no deadline (it waits for every record sent before it, up to {@code
 * delivery.timeout.ms}), so it never runs on the publishing thread, which waits for its own
 * acknowledgements until its own deadline. Requests made while a flush waits to start are merged
 * into it.
 */
public final class Flusher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

  private final Producer<?, ?> producer;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread flusher = new Thread(task, "outbox-kafka-flush");
            flusher.setDaemon(true);
            return flusher;
          });

  /**
   * Flushes for one producer.
   *
   * @param producer the producer, thread-safe
   */
  public Flusher(Producer<?, ?> producer) {
    this.producer = producer;
  }

  /** Asks for a flush of everything appended so far; returns at once. */
  public void request() {
    if (queued.compareAndSet(false, true)) {
      try {
        thread.execute(this::flush);
      } catch (RejectedExecutionException e) {
        queued.set(false); // closed: the producer's close flushes
      }
    }
  }

  private void flush() {
    queued.set(false);
    try {
      producer.flush();
    } catch (RuntimeException e) {
      // the records' own futures carry what went wrong, to the calls that wait for them
      LOG.debug("Kafka producer flush ended with {}", e.toString());
    }
  }

  /** Stops the flushing thread, interrupting a flush that waits. */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
