package dev.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class OutageTest {

  private final RecordingLogger log = new RecordingLogger();
  private final Outage outage =
      new Outage(
          () -> "test-1",
          "store (database) unreachable",
          "store (database) reachable again",
          "the processor retries every 500 ms",
          log);

  @Test
  void firstFailureIsOneWarningWithTheRootCauseAndWhatTheOutboxDoes() {
    outage.failed(
        System.nanoTime(),
        "recording and claiming",
        new IllegalStateException(
            "Unable to acquire JDBC Connection",
            new IOException("I/O error", new ConnectException("Connection refused"))));

    assertThat(log.at(Level.WARN))
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line.message())
                  .isEqualTo(
                      "Outbox test-1: store (database) unreachable while recording and claiming:"
                          + " java.net.ConnectException: Connection refused; the processor"
                          + " retries every 500 ms (stack traces at DEBUG)");
              assertThat(line.error()).as("no stack trace at warn").isNull();
            });
    assertThat(log.at(Level.DEBUG))
        .singleElement()
        .satisfies(line -> assertThat(line.error()).isInstanceOf(IllegalStateException.class));
    assertThat(outage.isDown()).isTrue();
  }

  @Test
  void laterFailuresGoToDebugWithTheirStackTraces() {
    for (int i = 0; i < 48; i++) {
      outage.failed(
          System.nanoTime(), "recording and claiming", new IllegalStateException("down " + i));
    }

    assertThat(log.at(Level.WARN)).hasSize(1);
    assertThat(log.at(Level.DEBUG))
        .hasSize(48)
        .allSatisfy(line -> assertThat(line.error()).isNotNull());
    assertThat(log.at(Level.DEBUG).get(47).message())
        .contains("store (database) unreachable, attempt 48 failed while recording and claiming")
        .contains("down 47");
  }

  @Test
  void firstSuccessAfterFailuresIsOneInfoLineWithTheDurationAndTheFailedAttempts() {
    outage.failed(System.nanoTime(), "cleaning up", new IllegalStateException("down"));
    outage.failed(System.nanoTime(), "recording and claiming", new IllegalStateException("down"));
    outage.failed(System.nanoTime(), "recording and claiming", new IllegalStateException("down"));

    outage.succeeded();
    outage.succeeded();

    assertThat(log.at(Level.INFO))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .matches(
                        "Outbox test-1: store \\(database\\) reachable again after"
                            + " [0-9.]+ (ms|s); 3 attempts failed"));
    assertThat(outage.isDown()).isFalse();
  }

  @Test
  void outageLastsFromTheStartOfTheFirstFailedAttempt() {
    long startedLongAgo = System.nanoTime() - Duration.ofSeconds(90).toNanos();
    outage.failed(startedLongAgo, "recording and claiming", new IllegalStateException("hung"));
    outage.failed(System.nanoTime(), "recording and claiming", new IllegalStateException("down"));

    outage.succeeded();

    assertThat(log.at(Level.INFO).get(0).message()).contains("reachable again after 1 min ");
  }

  @Test
  void aSecondOutageIsReportedAgain() {
    outage.failed(System.nanoTime(), "cleaning up", new IllegalStateException("first"));
    outage.succeeded();
    outage.failed(System.nanoTime(), "cleaning up", new IllegalStateException("second"));
    outage.succeeded();

    assertThat(log.at(Level.WARN)).hasSize(2);
    assertThat(log.at(Level.INFO))
        .hasSize(2)
        .allSatisfy(line -> assertThat(line.message()).endsWith("; 1 attempt failed"));
  }

  @Test
  void failuresThatEndWithinTheQuietTimeAreOnlyDebugLines() {
    Outage broker =
        new Outage(
            () -> "test-1",
            "broker not accepting messages",
            "broker accepting messages again",
            "retried",
            log,
            Duration.ofSeconds(2));
    long start = System.nanoTime();
    broker.failed(start, "publishing 2 messages", new IllegalStateException("refused"));
    broker.failed(
        start + Duration.ofMillis(1_500).toNanos(), "publishing 1 message", new IOException("no"));
    broker.succeeded();

    assertThat(log.at(Level.WARN)).isEmpty();
    assertThat(log.at(Level.INFO)).isEmpty();
    assertThat(log.at(Level.DEBUG)).isNotEmpty();
  }

  @Test
  void failuresThatOutlastTheQuietTimeAreOneWarningThenOneInfoLine() {
    Outage broker =
        new Outage(
            () -> "test-1",
            "broker not accepting messages",
            "broker accepting messages again",
            "retried",
            log,
            Duration.ofSeconds(2));
    long start = System.nanoTime() - Duration.ofSeconds(5).toNanos();
    broker.failed(start, "publishing 2 messages", new IllegalStateException("refused"));
    broker.failed(start + Duration.ofSeconds(1).toNanos(), "publishing", new IOException("no"));
    assertThat(log.at(Level.WARN)).isEmpty();
    broker.failed(start + Duration.ofSeconds(3).toNanos(), "publishing", new IOException("no"));
    broker.failed(start + Duration.ofSeconds(4).toNanos(), "publishing", new IOException("no"));
    broker.succeeded();

    assertThat(log.at(Level.WARN))
        .singleElement()
        .satisfies(line -> assertThat(line.message()).contains("broker not accepting messages"));
    assertThat(log.at(Level.INFO))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .contains("accepting messages again after 5.")
                    .endsWith("; 4 attempts failed"));
  }

  @Test
  void successWithoutFailureLogsNothing() {
    outage.succeeded();

    assertThat(log.lines()).isEmpty();
    assertThat(outage.isDown()).isFalse();
  }

  @Test
  void failureWithoutExceptionGivesItsReason() {
    outage.failed(
        System.nanoTime(),
        "publishing 3 messages",
        "no answer within the publish timeout of 2.0 s",
        null);

    assertThat(log.at(Level.WARN).get(0).message())
        .contains("unreachable while publishing 3 messages: no answer within");
  }

  @Test
  void reasonIsTheRootCauseOnOneLine() {
    String reason =
        Outage.reason(new RuntimeException("outer", new IllegalStateException("line 1\n  line 2")));

    assertThat(reason).isEqualTo("java.lang.IllegalStateException: line 1 line 2");
    assertThat(Outage.reason(new IllegalStateException("x".repeat(1_000)))).hasSize(303);
  }

  @Test
  void durationsReadAsAnOperatorSaysThem() {
    assertThat(Outage.format(Duration.ofMillis(850))).isEqualTo("850 ms");
    assertThat(Outage.format(Duration.ofMillis(12_345))).isEqualTo("12.3 s");
    assertThat(Outage.format(Duration.ofSeconds(245))).isEqualTo("4 min 05 s");
    assertThat(Outage.format(Duration.ofMinutes(125))).isEqualTo("2 h 05 min");
  }
}
