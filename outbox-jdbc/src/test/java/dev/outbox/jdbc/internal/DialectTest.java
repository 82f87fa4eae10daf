package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.DeliveryMode;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DialectTest {

  private static final OutboxOptions CUSTOM =
      OutboxOptions.builder()
          .outboxTable("app.orders_out")
          .deadLetterTable("app.orders_dead")
          .build();

  @Test
  void everyStatementOfEveryDialectHasTheCustomTableNamesFilledIn() {
    for (Dialect dialect : dialects(CUSTOM)) {
      List<String> statements = statementsOf(dialect);
      assertThat(statements).as(dialect.toString()).hasSizeGreaterThan(20);
      for (String sql : statements) {
        assertThat(sql)
            .as(dialect + ": a placeholder or a default table name is left")
            .doesNotContain("{")
            .doesNotContain("}")
            .doesNotContain("%s")
            .doesNotContain("outbox_")
            .doesNotContain("\n")
            .containsAnyOf("app.orders_out", "app.orders_dead");
      }
      String all = String.join("\n", statements);
      assertThat(all)
          .as(dialect.toString())
          .contains("FROM app.orders_out ")
          .contains("app.orders_out_heads")
          .contains("INSERT INTO app.orders_dead");
    }
  }

  @Test
  void eachDialectReadsTheClockItsOwnWay() {
    assertThat(statementsOf(new PostgresDialect(CUSTOM)))
        .noneMatch(sql -> sql.contains("UTC_TIMESTAMP") || sql.contains("CURRENT_TIMESTAMP"));
    assertThat(statementsOf(new MariaDbDialect(CUSTOM)))
        .noneMatch(sql -> sql.contains("statement_timestamp") || sql.contains("CURRENT_TIMESTAMP"));
    assertThat(statementsOf(new H2Dialect(CUSTOM)))
        .noneMatch(sql -> sql.contains("statement_timestamp") || sql.contains("UTC_TIMESTAMP"));
  }

  @Test
  void theProductNameTheDriverReportsChoosesTheDialect() {
    assertThat(Dialect.of("PostgreSQL", CUSTOM)).isInstanceOf(PostgresDialect.class);
    assertThat(Dialect.of("MariaDB", CUSTOM)).isInstanceOf(MariaDbDialect.class);
    assertThat(Dialect.of("MySQL", CUSTOM)).isInstanceOf(MariaDbDialect.class);
    assertThat(Dialect.of("H2", CUSTOM)).isInstanceOf(H2Dialect.class);
    assertThatThrownBy(() -> Dialect.of("Oracle", CUSTOM))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "The outbox supports PostgreSQL, MariaDB/MySQL and H2, but the database is Oracle");
  }

  @Test
  void onlyPostgresRunsCdcAndTheMessageNamesTheDatabase() {
    new PostgresDialect(CUSTOM).checkSupports(DeliveryMode.CDC);
    assertThatThrownBy(() -> new MariaDbDialect(CUSTOM).checkSupports(DeliveryMode.CDC))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("but this outbox's database is MariaDB/MySQL.");
    assertThatThrownBy(() -> new H2Dialect(CUSTOM).checkSupports(DeliveryMode.CDC))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("but this outbox's database is H2.");
    for (Dialect dialect : dialects(CUSTOM)) {
      dialect.checkSupports(DeliveryMode.POLLING);
    }
  }

  private static List<Dialect> dialects(OutboxOptions options) {
    return List.of(
        new PostgresDialect(options), new MariaDbDialect(options), new H2Dialect(options));
  }

  /** Every fixed statement the store runs on a dialect's database. */
  private static List<String> statementsOf(Dialect dialect) {
    HeadRecorder recorder = new HeadRecorder(dialect);
    List<String> statements = new ArrayList<>(dialect.statements());
    statements.addAll(dialect.headCycle(recorder).statements());
    statements.addAll(recorder.statements());
    statements.addAll(new StatsQuery(dialect).statements());
    statements.addAll(new DeadLetterRepository(dialect).statements());
    return statements;
  }
}
