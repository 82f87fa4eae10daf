package dev.outbox.kafka.internal;

import dev.outbox.kafka.internal.ClusterContact.Mark;
import dev.outbox.kafka.internal.ClusterContact.Seen;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Makes sure the producer has metadata for a batch's topics before anything is sent, within the
 * batch's deadline. The producer's own wait ({@code max.block.ms}) happens inside {@code send} on
 * the caller's thread, once per record; looking the topics up here instead, concurrently and at
 * most once per topic at a time, keeps a missing topic or an unreachable broker from costing more
 * than one metadata wait per batch, and never more than the publish timeout. Every batch checks all
 * its topics: the producer forgets topics it has not used for a while ({@code
 * metadata.max.idle.ms}), and a lookup of a topic it knows returns at once.
 *
 * <p>A lookup that fails comes with what the cluster answered while it ran ({@link
 * ClusterContact}), so that a topic the cluster does not have is told apart from a cluster that
 * cannot be reached: the producer fails both with the same timeout.
 */
public final class TopicMetadata implements AutoCloseable {

  private final Producer<?, ?> producer;
  private final ClusterContact contact;
  private final Map<String, Lookup> inFlight = new ConcurrentHashMap<>();
  private final ExecutorService lookups =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "outbox-kafka-metadata");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * A topic the batch cannot be sent to, and what the cluster answered while it was looked up.
   *
   * @param cause what the lookup failed with
   * @param seen what came back from the cluster since the lookup began
   */
  public record Missing(Throwable cause, Seen seen) {}

  /** One running lookup and the cluster's counters when it began. */
  private record Lookup(CompletableFuture<List<PartitionInfo>> partitions, Mark mark) {}

  /**
   * Wraps the producer whose metadata is looked up.
   *
   * @param producer the producer, thread-safe
   * @param contact what the producer hears from the cluster, to tell a missing topic from an
   *     unreachable cluster
   */
  public TopicMetadata(Producer<?, ?> producer, ClusterContact contact) {
    this.producer = producer;
    this.contact = contact;
  }

  /**
   * Looks up the topics.
   *
   * @param topics the batch's topics
   * @param deadlineNanos the batch's deadline on {@link System#nanoTime()}
   * @return why each topic that could not be found failed; empty when all are known
   */
  public Map<String, Missing> check(Collection<String> topics, long deadlineNanos) {
    Map<String, Lookup> pending = new LinkedHashMap<>();
    for (String topic : topics) {
      pending.put(topic, lookUp(topic));
    }
    Map<String, Missing> failures = new LinkedHashMap<>();
    pending.forEach(
        (topic, lookup) -> {
          Throwable failure = await(topic, lookup.partitions(), deadlineNanos);
          if (failure != null) {
            failures.put(topic, new Missing(failure, contact.since(lookup.mark())));
          }
        });
    return failures;
  }

  /** One lookup per topic at a time: a batch arriving while one runs waits for the same one. */
  private Lookup lookUp(String topic) {
    Lookup created = new Lookup(new CompletableFuture<>(), contact.mark());
    Lookup running = inFlight.putIfAbsent(topic, created);
    if (running != null) {
      return running;
    }
    CompletableFuture<List<PartitionInfo>> partitions = created.partitions();
    try {
      lookups.execute(
          () -> {
            try {
              partitions.complete(producer.partitionsFor(topic));
            } catch (RuntimeException e) {
              partitions.completeExceptionally(e);
            } finally {
              inFlight.remove(topic, created);
            }
          });
    } catch (RejectedExecutionException e) {
      inFlight.remove(topic, created);
      partitions.completeExceptionally(e);
    }
    return created;
  }

  private static Throwable await(
      String topic, CompletableFuture<List<PartitionInfo>> lookup, long deadlineNanos) {
    try {
      List<PartitionInfo> partitions =
          lookup.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      return partitions == null || partitions.isEmpty()
          ? new TimeoutException("Topic " + topic + " not present in metadata: no partitions")
          : null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      return new TimeoutException(
          "Topic " + topic + " not present in metadata within the publish timeout");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    }
  }

  @Override
  public void close() {
    lookups.shutdownNow();
  }
}
