package dev.outbox.rabbitmq.testing;

import dev.outbox.testkit.e2e.E2eDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads an end-to-end database's outbox tables for the outage tests: the highest {@code attempts}
 * of any head, the dead letters, and (on a thread of its own, every 100 ms, from {@link #start()}
 * to {@link #finish()}) the most of either seen meanwhile, so that an attempt counted and reset
 * during an outage does not go unseen.
 */
public final class HeadSampler extends Thread {

  private final E2eDatabase db;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong deadLetters = new AtomicLong();
  private volatile boolean running = true;

  /**
   * A sampler of this database, not started.
   *
   * @param db the end-to-end database
   */
  public HeadSampler(E2eDatabase db) {
    super("outage-sampler");
    setDaemon(true);
    this.db = db;
  }

  /**
   * What the sampler saw.
   *
   * @param samples how many times it read the tables
   * @param maxAttempts the highest {@code attempts} of any head
   * @param maxDeadLetters the most dead letters
   */
  public record Sample(long samples, long maxAttempts, long maxDeadLetters) {}

  @Override
  public void run() {
    while (running) {
      attempts.accumulateAndGet(maxAttempts(db), Math::max);
      deadLetters.accumulateAndGet(db.countDeadLetters(), Math::max);
      samples.incrementAndGet();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Stops sampling.
   *
   * @return what it saw
   * @throws InterruptedException when interrupted while waiting for the last sample
   */
  public Sample finish() throws InterruptedException {
    running = false;
    join(5_000);
    return new Sample(samples.get(), attempts.get(), deadLetters.get());
  }

  /**
   * The highest {@code attempts} column of any head now.
   *
   * @param db the end-to-end database
   * @return 0 when no message counted a failed attempt
   */
  public static long maxAttempts(E2eDatabase db) {
    Object max =
        rows(db, "SELECT coalesce(max(attempts), 0) AS m FROM " + db.options().headTable())
            .get(0)
            .get("m");
    return ((Number) max).longValue();
  }

  /**
   * The dead letters: aggregate type and id, seq, attempts and last error of each.
   *
   * @param db the end-to-end database
   * @return one map per dead letter, keyed by column name
   */
  public static List<Map<String, Object>> deadLetters(E2eDatabase db) {
    return rows(
        db,
        "SELECT aggregate_type, aggregate_id, seq, attempts, last_error FROM "
            + db.options().deadLetterTable()
            + " ORDER BY aggregate_id, seq");
  }

  private static List<Map<String, Object>> rows(E2eDatabase db, String sql) {
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      while (result.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int c = 1; c <= result.getMetaData().getColumnCount(); c++) {
          row.put(result.getMetaData().getColumnLabel(c), result.getObject(c));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
