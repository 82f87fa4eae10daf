package dev.outbox.internal;

import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

/**
 * Whether the processor sends to the broker, or waits out its outage. It closes when a batch shows
 * that the broker or the connection failed, not a message: a {@linkplain
 * PublishException#isBrokerFault() broker fault} with nothing acknowledged, or every send without
 * an answer in time. While it is closed the processor counts no attempt, gives back every head it
 * holds for sending (heads whose send is in doubt stay held until it settles), and sends nothing
 * but one message every probe interval, and none while a send is in doubt; it opens when the broker
 * acknowledges a message or refuses one for the message's own fault, and the processor then sends
 * everything at once. A probe that finds nothing to send opens it too: with nothing waiting, the
 * outbox has no outage to report, and the next send finds out again. Its outage is one warning when
 * it starts and one info line when it ends ({@link Outage}). Thread-safe: the processor and the
 * thread that settles sends in doubt report to it.
 */
final class BrokerGate {

  private final Outage outage;
  private final Clock clock;
  private final long probeNanos;
  private Instant downSince;
  private String reason;
  private long nextProbe;

  /**
   * An open gate.
   *
   * @param outage the broker's outage lines
   * @param clock the clock of the outage's start ({@link #down()})
   * @param probeInterval how often to try one message while closed
   */
  BrokerGate(Outage outage, Clock clock, Duration probeInterval) {
    this.outage = outage;
    this.clock = clock;
    this.probeNanos = probeInterval.toNanos();
  }

  /**
   * Reads what a batch's results say about the broker.
   *
   * @param results the final or uncertain results of the messages sent; none: nothing to say
   * @param started when the sending started, from {@link System#nanoTime()}
   * @param publishTimeout the publish timeout, for the reason of sends without an answer
   */
  void tell(Collection<PublishResult> results, long started, Duration publishTimeout) {
    if (results.isEmpty()) {
      return;
    }
    PublishException brokerFault = null;
    boolean answered = false;
    boolean allUncertain = true;
    for (PublishResult result : results) {
      if (result.isPublished()) {
        answered();
        return;
      }
      allUncertain &= result.isUncertain();
      if (result.isUncertain()) {
        continue;
      }
      if (result.failure().isBrokerFault()) {
        brokerFault = brokerFault == null ? result.failure() : brokerFault;
      } else {
        answered = true;
      }
    }
    String during =
        "publishing " + results.size() + (results.size() == 1 ? " message" : " messages");
    if (brokerFault != null) {
      unavailable(started, during, reasonOf(brokerFault), brokerFault);
    } else if (answered) {
      answered();
    } else if (allUncertain) {
      unavailable(
          started,
          during,
          "no answer within the publish timeout of " + Outage.format(publishTimeout),
          null);
    }
  }

  /**
   * A broker fault in one line for operators: the adapter's words (which name what to fix, such as
   * refused credentials), and the client's root cause when it says more.
   */
  private static String reasonOf(PublishException fault) {
    if (fault.getCause() == null) {
      return fault.reason();
    }
    String root = Outage.reason(fault.getCause());
    return fault.reason().contains(root) ? fault.reason() : fault.reason() + " (" + root + ")";
  }

  /**
   * An outage as health reports it.
   *
   * @param since when it started
   * @param reason why, in one line
   */
  record Down(Instant since, String reason) {}

  /**
   * The outage, read at once.
   *
   * @return the outage, or {@code null} while the gate is open
   */
  synchronized Down down() {
    return downSince == null ? null : new Down(downSince, reason);
  }

  /**
   * A probe found nothing to send: the outbox no longer knows of an outage. Opens the gate, saying
   * so in the outage's end line.
   */
  synchronized void nothingToTry() {
    if (downSince == null) {
      return;
    }
    outage.forgotten("nothing left to send");
    downSince = null;
    reason = null;
  }

  /** The broker took a message, or refused one for the message's own fault. */
  synchronized void answered() {
    outage.succeeded();
    downSince = null;
    reason = null;
  }

  private synchronized void unavailable(long started, String during, String why, Throwable error) {
    outage.failed(started, during, why, error);
    if (downSince == null) {
      downSince = clock.instant().minusNanos(Math.max(0, System.nanoTime() - started));
      nextProbe = System.nanoTime() + probeNanos;
    }
    reason = why;
  }

  /**
   * Whether the processor sends.
   *
   * @return {@code false} during a broker outage
   */
  synchronized boolean isOpen() {
    return downSince == null;
  }

  /**
   * Whether it is time to try one message: while closed, once per probe interval.
   *
   * @return {@code true} at most once per interval, and never while open
   */
  synchronized boolean takeProbe() {
    if (downSince == null || System.nanoTime() - nextProbe < 0) {
      return false;
    }
    nextProbe = System.nanoTime() + probeNanos;
    return true;
  }

  /**
   * How long until the next probe, for the processor's wait.
   *
   * @param atMost the longest wait
   * @return the time left, at most {@code atMost}; {@code atMost} while open
   */
  synchronized Duration untilProbe(Duration atMost) {
    if (downSince == null) {
      return atMost;
    }
    Duration left = Duration.ofNanos(Math.max(0, nextProbe - System.nanoTime()));
    return left.compareTo(atMost) < 0 ? left : atMost;
  }
}
