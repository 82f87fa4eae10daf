package dev.outbox.kafka.internal;

import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * What the producer saw of the cluster while a lookup or a send waited: whether any broker
 * answered, whether brokers refused its credentials, or whether nothing came back at all.
 *
 * <p>The Kafka client reports a topic that does not exist and a cluster it cannot reach with the
 * same {@code TimeoutException} ("Topic X not present in metadata after N ms"). The producer's own
 * network metrics tell them apart: while it waits for a missing topic, the brokers keep answering
 * its metadata requests (each answer says the topic is unknown), so {@code response-total} grows
 * and a connection stays open; while the cluster is unreachable nothing is received, and the
 * connection count is zero once the connections are lost. Brokers that refuse the credentials close
 * every connection after the handshake and count in {@code failed-authentication-total}.
 *
 * <p>The counters are read at the start of a wait ({@link #mark()}) and again when it failed
 * ({@link #since(Mark)}). A cluster that answered at the start of the wait and then went away while
 * the wait lasted has no connection open at the end, so it is not mistaken for a missing topic
 * unless a reconnect happens to be under way at that instant; the next attempt then sees the
 * outage. Thread-safe.
 */
public final class ClusterContact {

  /** What came back from the cluster during a wait. */
  public enum Seen {
    /** A broker answered: the cluster is reachable, so a topic it does not list does not exist. */
    ANSWERED,
    /** A broker refused the credentials (failed SASL or TLS authentication). */
    CREDENTIALS_REFUSED,
    /** Nothing: no broker could be reached. */
    NOTHING
  }

  /**
   * The counters at the start of a wait.
   *
   * @param responses responses received so far, or {@code -1} when the metric is unavailable
   * @param failedAuthentications failed authentications so far, or {@code -1} likewise
   */
  public record Mark(double responses, double failedAuthentications) {}

  static final String GROUP = "producer-metrics";
  static final String RESPONSES = "response-total";
  static final String FAILED_AUTHENTICATIONS = "failed-authentication-total";
  static final String CONNECTIONS = "connection-count";

  private final Supplier<Map<MetricName, ? extends Metric>> metrics;
  private volatile Metric responses;
  private volatile Metric failedAuthentications;
  private volatile Metric connections;

  /**
   * Watches a producer's metrics.
   *
   * @param producer the producer
   */
  public ClusterContact(Producer<?, ?> producer) {
    this(producer::metrics);
  }

  /**
   * Watches the metrics a supplier returns (the producer's, or a test's).
   *
   * @param metrics the metrics, looked up on first use
   */
  ClusterContact(Supplier<Map<MetricName, ? extends Metric>> metrics) {
    this.metrics = metrics;
  }

  /**
   * Reads the counters at the start of a wait.
   *
   * @return the mark to pass to {@link #since(Mark)}
   */
  public Mark mark() {
    lookUp();
    return new Mark(read(responses), read(failedAuthentications));
  }

  /**
   * What came back from the cluster since the mark. When the producer's metrics cannot be read, a
   * broker is taken to have answered: the failure then counts against the message as it always did,
   * rather than holding every message on a guess.
   *
   * @param mark the counters at the start of the wait
   * @return {@link Seen#CREDENTIALS_REFUSED} when an authentication failed since the mark, {@link
   *     Seen#ANSWERED} when responses arrived since it and a connection is open now, {@link
   *     Seen#NOTHING} otherwise
   */
  public Seen since(Mark mark) {
    lookUp();
    double responsesNow = read(responses);
    double failuresNow = read(failedAuthentications);
    double connectionsNow = read(connections);
    if (responsesNow < 0 || connectionsNow < 0) {
      return Seen.ANSWERED;
    }
    if (failuresNow > Math.max(0, mark.failedAuthentications())) {
      return Seen.CREDENTIALS_REFUSED;
    }
    return responsesNow > Math.max(0, mark.responses()) && connectionsNow > 0
        ? Seen.ANSWERED
        : Seen.NOTHING;
  }

  /** The producer registers its metrics once, when it is created: find them the first time. */
  private void lookUp() {
    if (responses != null && failedAuthentications != null && connections != null) {
      return;
    }
    for (Map.Entry<MetricName, ? extends Metric> entry : metrics.get().entrySet()) {
      MetricName name = entry.getKey();
      if (!GROUP.equals(name.group())) {
        continue;
      }
      switch (name.name()) {
        case RESPONSES -> responses = entry.getValue();
        case FAILED_AUTHENTICATIONS -> failedAuthentications = entry.getValue();
        case CONNECTIONS -> connections = entry.getValue();
        default -> {
          // not one of ours
        }
      }
    }
  }

  private static double read(Metric metric) {
    if (metric == null) {
      return -1;
    }
    Object value = metric.metricValue();
    return value instanceof Number number ? number.doubleValue() : -1;
  }
}
