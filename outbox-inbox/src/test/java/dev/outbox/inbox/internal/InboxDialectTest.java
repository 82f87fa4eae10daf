package dev.outbox.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxException;
import dev.outbox.inbox.InboxOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

class InboxDialectTest {

  private static final InboxOptions RENAMED =
      InboxOptions.builder()
          .source("billing")
          .positionsTable("app.billing_positions")
          .receivedIdsTable("app.billing_ids")
          .build();

  private static final List<String> PRODUCTS = List.of("PostgreSQL", "MariaDB", "MySQL", "H2");

  @Test
  void everyStatementOfEveryDatabaseNamesTheConfiguredTablesAndLeavesNoPlaceholder() {
    for (String product : PRODUCTS) {
      InboxDialect dialect = InboxDialect.of(product, RENAMED);
      assertThat(dialect.statements())
          .as(product)
          .allSatisfy(
              sql -> {
                assertThat(sql).doesNotContain("{", "inbox_positions", "inbox_received_ids");
                assertThat(sql).containsAnyOf("app.billing_positions", "app.billing_ids");
              });
    }
  }

  @Test
  void eachDatabaseHasItsOwnMigration() {
    assertThat(PRODUCTS.stream().map(p -> InboxDialect.of(p, RENAMED).migrationResource()))
        .containsExactly(
            "db/inbox/postgresql/V1__inbox_tables.sql",
            "db/inbox/mariadb/V1__inbox_tables.sql",
            "db/inbox/mariadb/V1__inbox_tables.sql",
            "db/inbox/h2/V1__inbox_tables.sql");
  }

  @Test
  void anUnsupportedDatabaseIsNamed() {
    assertThatThrownBy(() -> InboxDialect.of("Oracle", RENAMED))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("Oracle")
        .hasMessageContaining("PostgreSQL, MariaDB/MySQL and H2");
  }

  @Test
  void theMigrationIsRenamedToTheConfiguredTablesAndTheirIndexes() {
    for (String product : List.of("PostgreSQL", "MariaDB", "H2")) {
      List<String> ddl = new InboxSchema(InboxDialect.of(product, RENAMED), RENAMED).ddl();
      assertThat(ddl).as(product).hasSizeGreaterThanOrEqualTo(2);
      assertThat(String.join("\n", ddl))
          .as(product)
          .contains("CREATE TABLE IF NOT EXISTS app.billing_positions")
          .contains("CREATE TABLE IF NOT EXISTS app.billing_ids")
          .contains("ix_billing_ids_received")
          .doesNotContain("inbox_positions", "inbox_received_ids", "--");
    }
  }
}
