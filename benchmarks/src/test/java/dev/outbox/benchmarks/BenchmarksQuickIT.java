package dev.outbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the quick benchmark in this JVM as a smoke test of the harness: every figure of the issue is
 * measured and written as a positive number, except the counts a broker outage must leave at zero:
 * the attempts at the broker's return and the dead letters are zero, the attempts counted over the
 * run (at most one per head at the return, on Kafka, when the broker's return ends a topic lookup)
 * are not negative, and the inbox wrote no received id; the inbox's cost per message, a difference
 * of two timings, may have any sign. No timing is asserted.
 */
class BenchmarksQuickIT {

  private static final Path RESULTS = Path.of("target", "benchmark-results.json");

  private static final List<String> FIGURES =
      List.of(
          "db_ceiling_rows_per_s",
          "kafka_ceiling_msgs_per_s",
          "relay_kafka_events_per_s",
          "relay_vs_db_ceiling",
          "relay_vs_kafka_ceiling",
          "rabbitmq_ceiling_msgs_per_s",
          "relay_rabbitmq_events_per_s",
          "nats_ceiling_msgs_per_s",
          "relay_nats_events_per_s",
          "write_overhead_ratio_1",
          "write_overhead_ratio_10",
          "latency_p50_ms",
          "latency_p99_ms",
          "latency_max_ms",
          "latency_p50_ms_run_1",
          "latency_p99_ms_run_1",
          "latency_p50_ms_run_2",
          "latency_p99_ms_run_2",
          "latency_p50_ms_run_3",
          "latency_p99_ms_run_3",
          "claim_ms_10k_retained",
          "claim_ms_1m_retained",
          "drain_1m_heap_256m",
          "claim_ms_all_heads_leased",
          "claim_ms_half_heads_leased",
          "relay_kafka_10_aggregates_events_per_s",
          "relay_kafka_1000_aggregates_events_per_s",
          "relay_kafka_100k_aggregates_events_per_s",
          "relay_10_vs_1000_aggregates",
          "catch_up_s",
          "recovery_s_after_outage_kafka",
          "recovery_s_after_outage_rabbitmq",
          "recovery_s_after_outage_nats",
          "outage_first_ack_s_kafka",
          "outage_publish_calls_during_cut_kafka",
          "inbox_handler_alone_msgs_per_s",
          "inbox_with_inbox_msgs_per_s",
          "inbox_overhead_ratio",
          "inbox_statements_per_message",
          "inbox_rows_after_1m_messages",
          "inbox_1m_msgs_per_s",
          "inbox_positions_bytes_after_1m_messages");

  /**
   * What a broker outage must not do, on each broker: count attempts, make dead letters; and the
   * received ids the inbox must not write for messages with seq.
   */
  private static final List<String> ZERO =
      List.of(
          "outage_max_attempts_at_return_kafka",
          "outage_max_attempts_at_return_rabbitmq",
          "outage_max_attempts_at_return_nats",
          "outage_dead_letters_kafka",
          "outage_dead_letters_rabbitmq",
          "outage_dead_letters_nats",
          "inbox_received_ids_rows_after_1m_messages");

  /** Counts that may be zero. */
  private static final List<String> COUNTS =
      List.of(
          "outage_attempts_counted_kafka",
          "outage_attempts_counted_rabbitmq",
          "outage_attempts_counted_nats");

  /** A difference of two timings (the inbox's cost per message): written, of any sign. */
  private static final List<String> SIGNED = List.of("inbox_us_per_message");

  @BeforeAll
  static void serversRun() {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable(
        "RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached (guest/guest)");
    RequiredServer.assumeReachable("NATS", "127.0.0.1", 4222, "nats-server -js");
  }

  @Test
  void quickRunWritesEveryFigureAsAPositiveNumber() throws Exception {
    Files.deleteIfExists(RESULTS);

    int exit = Benchmarks.run("--quick", "--output", RESULTS.toString());

    assertThat(exit).isZero();
    Map<String, Double> written = parse(Files.readString(RESULTS));
    assertThat(written).containsKeys(FIGURES.toArray(String[]::new));
    assertThat(written).containsKeys(ZERO.toArray(String[]::new));
    assertThat(written).containsKeys(COUNTS.toArray(String[]::new));
    assertThat(written).containsKeys(SIGNED.toArray(String[]::new));
    assertThat(written)
        .allSatisfy(
            (name, value) -> {
              if (ZERO.contains(name)) {
                assertThat(value).as(name).isZero();
              } else if (COUNTS.contains(name)) {
                assertThat(value).as(name).isNotNegative();
              } else if (!SIGNED.contains(name)) {
                assertThat(value).as(name).isPositive();
              }
            });
  }

  /** The flat {@code {"name": number}} object the benchmarks write. */
  private static Map<String, Double> parse(String json) {
    assertThat(json.strip()).startsWith("{").endsWith("}");
    Map<String, Double> values = new LinkedHashMap<>();
    Matcher entry = Pattern.compile("\"([a-z0-9_]+)\"\\s*:\\s*([^,}\\s]+)").matcher(json);
    while (entry.find()) {
      values.put(entry.group(1), parseNumber(entry.group(1), entry.group(2)));
    }
    return values;
  }

  private static double parseNumber(String name, String text) {
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new AssertionError(name + " is not a number: " + text, e);
    }
  }
}
