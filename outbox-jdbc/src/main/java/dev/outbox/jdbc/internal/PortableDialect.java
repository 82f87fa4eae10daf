package dev.outbox.jdbc.internal;

import dev.outbox.OutboxOptions;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * MariaDB/MySQL and H2, which have no data-modifying CTE: the head upsert is a statement of its own
 * followed by a select of the heads, messages are inserted in a second statement, heads are claimed
 * and recorded by the {@link PortableHeadCycle}, and durations are bound in microseconds.
 */
abstract sealed class PortableDialect extends Dialect permits MariaDbDialect, H2Dialect {

  private final String upsert;
  private final String upsertRow;

  /**
   * A dialect with its head upsert.
   *
   * @param options the table names
   * @param upsert the upsert, with {@code %s} where the rows go
   * @param upsertRow one row of the upsert's values
   */
  PortableDialect(OutboxOptions options, String upsert, String upsertRow) {
    super(options);
    this.upsert = sql(upsert);
    this.upsertRow = upsertRow;
  }

  @Override
  final List<String> writeStatements() {
    return List.of(upsertHeads(2));
  }

  @Override
  final void bindDuration(PreparedStatement statement, int index, Duration duration)
      throws SQLException {
    statement.setLong(index, duration.toNanos() / 1_000);
  }

  @Override
  final String upsertHeads(int rows) {
    return upsert.formatted(repeat(upsertRow, rows));
  }

  @Override
  final HeadCycle headCycle(HeadRecorder recorder) {
    return new PortableHeadCycle(this, recorder);
  }
}
