package dev.outbox.internal;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Whether one dependency of the outbox (its store or its broker) answers, logged so that an
 * operator reads one line when it stops answering and one when it answers again, however many
 * attempts fail in between. The first failure is a warning with the short reason (the root cause's
 * class and message, no stack trace) and what the outbox does meanwhile; every failure's stack
 * trace goes to debug. The first success after failures is an info line with how long the outage
 * lasted and how many attempts failed. Thread-safe: the processor, cleanup and lease renewal report
 * to the same one.
 *
 * <p>A dependency may have a quiet time: failures that end, by a success, within it from the first
 * one are only debug lines. The broker has one, because the engine tells a broker that cannot be
 * reached from one that refuses a few messages retryably only by how long no message gets through:
 * a batch of two messages that both fail now and then is no outage worth a warning.
 */
final class Outage {

  private static final int MAX_REASON_LENGTH = 300;

  private final Supplier<String> instanceId;
  private final String down;
  private final String up;
  private final String meanwhile;
  private final Logger log;
  private final long quietNanos;
  private long downSince;
  private int failures;
  private boolean announced;

  /**
   * A dependency that answers, until told otherwise.
   *
   * @param instanceId the id the outbox runs under, first on each line
   * @param down what the lines say when it does not answer: {@code store (database) unreachable}
   * @param up what the line says when it answers again: {@code store (database) reachable again}
   * @param meanwhile what the outbox does while it does not answer: {@code the processor retries
   *     every 500 ms}
   * @param log where the lines go
   */
  Outage(Supplier<String> instanceId, String down, String up, String meanwhile, Logger log) {
    this(instanceId, down, up, meanwhile, log, Duration.ZERO);
  }

  /**
   * The same with a quiet time: the warning comes with the first failed attempt that starts at
   * least {@code quiet} after the first one, with no success in between.
   */
  Outage(
      Supplier<String> instanceId,
      String down,
      String up,
      String meanwhile,
      Logger log,
      Duration quiet) {
    this.instanceId = instanceId;
    this.down = down;
    this.up = up;
    this.meanwhile = meanwhile;
    this.log = log;
    this.quietNanos = quiet.toNanos();
  }

  /**
   * An attempt failed: a warning when it is the first one, debug otherwise.
   *
   * @param started when the attempt started, from {@link System#nanoTime()}: the first failed
   *     attempt's start is when the outage started
   * @param during what the outbox was doing: {@code cleaning up}
   * @param error why; its root cause is the reason the warning gives
   */
  void failed(long started, String during, Throwable error) {
    failed(started, during, reason(error), error);
  }

  /**
   * An attempt failed: a warning when it is the first one, debug otherwise.
   *
   * @param started when the attempt started, from {@link System#nanoTime()}
   * @param during what the outbox was doing: {@code publishing 20 messages}
   * @param reason why, in one line
   * @param error the failure whose stack trace goes to debug; {@code null} when there is none
   */
  synchronized void failed(long started, String during, String reason, Throwable error) {
    failures++;
    if (failures == 1) {
      downSince = started;
    }
    if (!announced && started - downSince >= quietNanos) {
      announced = true;
      log.warn(
          "Outbox {}: {} while {}: {}; {} (stack traces at DEBUG)",
          instanceId.get(),
          down,
          during,
          reason,
          meanwhile);
      log.debug("Outbox {}: {} while {}", instanceId.get(), down, during, error);
    } else {
      log.debug(
          "Outbox {}: {}, attempt {} failed while {}: {}",
          instanceId.get(),
          down,
          failures,
          during,
          reason,
          error);
    }
  }

  /**
   * An attempt succeeded: after failures, one info line with how long the outage lasted, from the
   * start of the first failed attempt until now.
   */
  synchronized void succeeded() {
    end(up + " after {}");
  }

  /**
   * The outage is no longer known to last, without a success: nothing is left to try. After
   * failures, one info line (when the outage was announced) with how long it was seen and why it is
   * no longer.
   *
   * @param why why it is no longer known, for the line: {@code nothing left to send}
   */
  synchronized void forgotten(String why) {
    end(down + " for {}, then " + why);
  }

  /**
   * Ends the outage, if there is one: one line (info when it was announced, debug otherwise) saying
   * how it ended, with its duration in place of {@code {}}, and how many attempts failed.
   */
  private void end(String how) {
    if (failures == 0) {
      return;
    }
    Duration lasted = Duration.ofNanos(System.nanoTime() - downSince);
    String line = "Outbox {}: " + how + "; {} {} failed";
    Object[] values = {instanceId.get(), format(lasted), failures, attempts(failures)};
    if (announced) {
      log.info(line, values);
    } else {
      log.debug(line, values);
    }
    failures = 0;
    announced = false;
  }

  private static String attempts(int count) {
    return count == 1 ? "attempt" : "attempts";
  }

  /**
   * Whether the last attempt failed.
   *
   * @return {@code true} from the first failure until the next success
   */
  synchronized boolean isDown() {
    return failures > 0;
  }

  /**
   * The root cause of a failure in one line: its class and message.
   *
   * @param error the failure
   * @return for example {@code java.net.ConnectException: Connection refused}
   */
  static String reason(Throwable error) {
    if (error == null) {
      return "no reason given";
    }
    Throwable root = error;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 20; depth++) {
      root = root.getCause();
    }
    String text = root.toString().replaceAll("\\s+", " ").trim();
    return text.length() <= MAX_REASON_LENGTH ? text : text.substring(0, MAX_REASON_LENGTH) + "...";
  }

  /**
   * A duration as an operator reads it.
   *
   * @param duration the duration
   * @return for example {@code 850 ms}, {@code 12.3 s} or {@code 4 min 05 s}
   */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1_000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1_000.0);
    }
    long seconds = duration.toSeconds();
    if (seconds < 3_600) {
      return String.format(Locale.ROOT, "%d min %02d s", seconds / 60, seconds % 60);
    }
    return String.format(Locale.ROOT, "%d h %02d min", seconds / 3_600, (seconds % 3_600) / 60);
  }
}
