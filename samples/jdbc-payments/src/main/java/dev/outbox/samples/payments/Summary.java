package dev.outbox.samples.payments;

import java.util.Locale;

/**
 * The demo's result.
 *
 * @param received distinct events the consumer got
 * @param expected events committed
 * @param duplicates messages received again with an id already seen
 * @param outOfOrder events of an aggregate that did not follow its previous event
 * @param deadLetters messages the outbox gave up on
 * @param refusedCaptures captures the database refused, whose transactions rolled back
 * @param cleanedUp delivered rows the outbox's cleanup deleted at the end
 * @param rowsLeft rows left in the outbox table after the cleanup
 */
public record Summary(
    long received,
    long expected,
    long duplicates,
    long outOfOrder,
    long deadLetters,
    long refusedCaptures,
    long cleanedUp,
    long rowsLeft) {

  /**
   * Whether the run passed: every event arrived, none out of order, no dead letter, and the cleanup
   * left nothing (duplicates are allowed: delivery is at least once).
   *
   * @return {@code true} when all of that holds
   */
  public boolean ok() {
    return received == expected && outOfOrder == 0 && deadLetters == 0 && rowsLeft == 0;
  }

  /**
   * The one summary line.
   *
   * @return {@code summary: received 1200/1200 events, 0 duplicates, 0 out of order, 0 dead
   *     letters; 30 refused captures sent nothing; cleanup deleted 1200 delivered rows, 0 left}
   */
  public String line() {
    return String.format(
        Locale.ROOT,
        "summary: received %d/%d events, %d duplicates, %d out of order, %d dead letters;"
            + " %d refused captures sent nothing; cleanup deleted %d delivered rows, %d left",
        received,
        expected,
        duplicates,
        outOfOrder,
        deadLetters,
        refusedCaptures,
        cleanedUp,
        rowsLeft);
  }
}
