package dev.outbox.cdc;

import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/** What the engines handed over, in arrival order, across engine restarts. */
final class ReceivedRecords {

  /**
   * One record as a Kafka producer would send it.
   *
   * @param topic the routed topic
   * @param key the record key
   * @param value the record value
   * @param timestamp the record timestamp, epoch millis
   * @param headers the headers in order, as text
   */
  record Record(
      String topic, String key, String value, Long timestamp, Map<String, String> headers) {

    List<String> headerNames() {
      return List.copyOf(headers.keySet());
    }
  }

  private final List<Record> records = new ArrayList<>();

  synchronized void add(SourceRecord record) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), String.valueOf(header.value()));
    }
    records.add(
        new Record(
            record.topic(),
            (String) record.key(),
            (String) record.value(),
            record.timestamp(),
            Collections.unmodifiableMap(headers)));
    notifyAll();
  }

  synchronized int count(String topic) {
    return of(topic).size();
  }

  synchronized Set<String> keys() {
    return records.stream().map(Record::key).collect(Collectors.toSet());
  }

  /** Waits until at least {@code count} records of the topic arrived and returns them all. */
  synchronized List<Record> await(String topic, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (of(topic).size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(
            of(topic).size() + " of " + count + " records of " + topic + " within " + timeout);
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return of(topic);
  }

  /** Feeds the topic's records to the check until it is complete, then the rest that came. */
  void awaitComplete(String topic, DeliveryCheck check, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int fed = 0;
    while (true) {
      List<Record> arrived;
      synchronized (this) {
        arrived = of(topic);
        if (arrived.size() == fed && !check.isComplete()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new AssertionError("Incomplete within " + timeout + ": " + check.summary());
          }
          wait(Math.min(200, Math.max(1, left / 1_000_000)));
          continue;
        }
      }
      for (Record record : arrived.subList(fed, arrived.size())) {
        E2eAggregate.Stepped event =
            E2eAggregate.Stepped.parse(record.value().getBytes(StandardCharsets.UTF_8));
        check.record(record.key(), event.sequence(), record.headers().get("outbox-message-id"));
      }
      fed = arrived.size();
      if (check.isComplete()) {
        return;
      }
    }
  }

  private List<Record> of(String topic) {
    return records.stream().filter(r -> r.topic().equals(topic)).toList();
  }
}
