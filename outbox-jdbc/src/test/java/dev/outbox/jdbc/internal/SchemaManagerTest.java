package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaManagerTest {

  @Test
  void ddlUsesConfiguredTableNamesAndRenamesTheirIndexes() {
    OutboxOptions options =
        OutboxOptions.builder().outboxTable("app.events").deadLetterTable("app.dead").build();
    List<String> ddl = new SchemaManager(new PostgresDialect(options), options).ddl();

    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.events ("));
    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.dead ("));
    assertThat(ddl)
        .anySatisfy(
            sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.events_heads ("));
    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).contains("ix_events_created").contains("ON app.events"));
    assertThat(ddl)
        .anySatisfy(
            sql -> assertThat(sql).contains("ix_events_heads_due").contains("ON app.events_heads"));
    assertThat(ddl)
        .anySatisfy(
            sql ->
                assertThat(sql)
                    .startsWith("CREATE OR REPLACE VIEW app.events_published")
                    .contains("FROM app.events m JOIN app.events_heads h"));
    assertThat(String.join("\n", ddl))
        .doesNotContain("outbox_messages")
        .doesNotContain("outbox_heads")
        .doesNotContain("outbox_published")
        .doesNotContain("outbox_dead_letters")
        .doesNotContain("--");
  }

  @Test
  void everyDatabaseShipsThreeTablesAndThePublishedView() {
    OutboxOptions options = OutboxOptions.defaults();
    for (Dialect dialect :
        List.of(
            new PostgresDialect(options), new MariaDbDialect(options), new H2Dialect(options))) {
      List<String> ddl = new SchemaManager(dialect, options).ddl();
      assertThat(ddl.stream().filter(sql -> sql.startsWith("CREATE TABLE")))
          .as(dialect.toString())
          .hasSize(3);
      assertThat(ddl.stream().filter(sql -> sql.startsWith("CREATE OR REPLACE VIEW")))
          .as(dialect.toString())
          .hasSize(1);
    }
  }
}
