package dev.outbox.nats.testing;

import dev.outbox.testkit.e2e.E2eDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the outbox's heads and dead letters of an {@link E2eDatabase} directly, and samples them in
 * the background while a broker is away: the highest {@code attempts} of any head and the number of
 * dead letters seen, so that a test can show that an outage counted nothing at any moment, not only
 * at its end.
 */
public final class HeadWatch implements AutoCloseable {

  private final E2eDatabase db;
  private final AtomicInteger samples = new AtomicInteger();
  private final AtomicLong maxAttempts = new AtomicLong();
  private final AtomicLong maxDeadLetters = new AtomicLong();
  private final Thread sampler;
  private volatile boolean stopped;

  private HeadWatch(E2eDatabase db) {
    this.db = db;
    this.sampler = new Thread(this::sample, "head-watch");
    sampler.setDaemon(true);
  }

  /**
   * Starts sampling every 100 ms.
   *
   * @param db the database
   * @return the running watch; {@link #close()} stops it
   */
  public static HeadWatch start(E2eDatabase db) {
    HeadWatch watch = new HeadWatch(db);
    watch.sampler.start();
    return watch;
  }

  /**
   * What the samples found.
   *
   * @param samples how many samples were taken
   * @param maxAttempts the highest {@code attempts} of any head in any sample
   * @param maxDeadLetters the most dead letters in any sample
   */
  public record Seen(int samples, long maxAttempts, long maxDeadLetters) {}

  /**
   * Stops sampling and says what was seen.
   *
   * @return the samples' findings
   * @throws InterruptedException when interrupted
   */
  public Seen finish() throws InterruptedException {
    stopped = true;
    sampler.join(5_000);
    return new Seen(samples.get(), maxAttempts.get(), maxDeadLetters.get());
  }

  @Override
  public void close() throws InterruptedException {
    finish();
  }

  private void sample() {
    while (!stopped) {
      maxAttempts.accumulateAndGet(maxAttempts(db), Math::max);
      maxDeadLetters.accumulateAndGet(db.countDeadLetters(), Math::max);
      samples.incrementAndGet();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * The highest {@code attempts} column of the heads now.
   *
   * @param db the database
   * @return 0 when no head counts a failed attempt
   */
  public static long maxAttempts(E2eDatabase db) {
    List<Map<String, Object>> rows =
        query(db, "SELECT coalesce(max(attempts), 0) AS n FROM " + db.options().headTable());
    return ((Number) rows.get(0).get("n")).longValue();
  }

  /**
   * The dead letters, oldest first.
   *
   * @param db the database
   * @return each row's aggregate type and id, seq, attempts and last error
   */
  public static List<Map<String, Object>> deadLetters(E2eDatabase db) {
    return query(
        db,
        "SELECT aggregate_type, aggregate_id, seq, attempts, last_error FROM "
            + db.options().deadLetterTable()
            + " ORDER BY dead_lettered_at, seq");
  }

  private static List<Map<String, Object>> query(E2eDatabase db, String sql) {
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= columns; i++) {
          row.put(result.getMetaData().getColumnLabel(i), result.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
