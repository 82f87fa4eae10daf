package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.kafka.internal.ClusterContact.Mark;
import dev.outbox.kafka.internal.ClusterContact.Seen;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class ClusterContactTest {

  private final Map<MetricName, Counter> metrics = new HashMap<>();
  private final Counter responses = counter(ClusterContact.RESPONSES);
  private final Counter failedAuthentications = counter(ClusterContact.FAILED_AUTHENTICATIONS);
  private final Counter connections = counter(ClusterContact.CONNECTIONS);
  private final ClusterContact contact = new ClusterContact(() -> metrics);

  @Test
  void responsesDuringTheWaitOverAnOpenConnectionMeanTheClusterAnswered() {
    connections.value = 1;
    Mark mark = contact.mark();
    responses.value += 3;

    assertThat(contact.since(mark)).isEqualTo(Seen.ANSWERED);
  }

  @Test
  void noResponseDuringTheWaitMeansNothingCameBackEvenOverAnOpenConnection() {
    responses.value = 40;
    connections.value = 1;
    Mark mark = contact.mark();

    assertThat(contact.since(mark)).isEqualTo(Seen.NOTHING);
  }

  @Test
  void responsesBeforeTheConnectionsWereLostMeanNothingCameBack() {
    connections.value = 1;
    Mark mark = contact.mark();
    responses.value += 3;
    connections.value = 0;

    assertThat(contact.since(mark)).isEqualTo(Seen.NOTHING);
  }

  @Test
  void failedAuthenticationDuringTheWaitMeansTheCredentialsWereRefused() {
    Mark mark = contact.mark();
    failedAuthentications.value += 2;

    assertThat(contact.since(mark)).isEqualTo(Seen.CREDENTIALS_REFUSED);
  }

  @Test
  void failedAuthenticationBeforeTheWaitIsNotCounted() {
    failedAuthentications.value = 5;
    Mark mark = contact.mark();

    assertThat(contact.since(mark)).isEqualTo(Seen.NOTHING);
  }

  @Test
  void withoutTheProducersMetricsTheClusterIsTakenToHaveAnswered() {
    ClusterContact blind = new ClusterContact(Map::of);

    assertThat(blind.since(blind.mark())).isEqualTo(Seen.ANSWERED);
  }

  @Test
  void metricsOfOtherGroupsAreIgnored() {
    Map<MetricName, Counter> perNode = new HashMap<>();
    perNode.put(
        new MetricName(ClusterContact.RESPONSES, "producer-node-metrics", "", Map.of()),
        new Counter(null));
    ClusterContact wrongGroup = new ClusterContact(() -> perNode);

    assertThat(wrongGroup.since(wrongGroup.mark())).isEqualTo(Seen.ANSWERED);
  }

  private Counter counter(String name) {
    MetricName metricName = new MetricName(name, ClusterContact.GROUP, "", Map.of());
    Counter counter = new Counter(metricName);
    metrics.put(metricName, counter);
    return counter;
  }

  /** A producer metric whose value the test sets. */
  private static final class Counter implements Metric {
    private final MetricName name;
    double value;

    Counter(MetricName name) {
      this.name = name;
    }

    @Override
    public MetricName metricName() {
      return name;
    }

    @Override
    public Object metricValue() {
      return value;
    }
  }
}
