package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outbox.jdbc.OutboxSchemaException;
import dev.outbox.spring.boot.ledger.LedgerApplication;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.testkit.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

/**
 * An application started on a database without the outbox tables, and without {@code
 * outbox.create-schema}, fails with Spring Boot's short failure report naming the tables, the
 * database and the properties that fix it, not with the stack trace of the schema check: on both
 * backends, each on a fresh PostgreSQL schema of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class BootSchemaFailureIT {

  /** Empty: no outbox table at all. */
  private static final String EMPTY = "boot_no_outbox";

  /** Outbox tables of the default names with too few columns, as an older schema would have. */
  private static final String STALE = "boot_stale_outbox";

  @BeforeAll
  static void schemas() throws SQLException {
    RequiredServer.assumePostgres();
    dropSchemas();
    try (Connection connection = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + EMPTY);
      statement.execute("CREATE SCHEMA " + STALE);
      statement.execute("CREATE TABLE " + STALE + ".outbox_messages (id uuid PRIMARY KEY)");
      statement.execute("CREATE TABLE " + STALE + ".outbox_heads (aggregate_type varchar(100))");
      statement.execute("CREATE TABLE " + STALE + ".outbox_dead_letters (id uuid PRIMARY KEY)");
    }
  }

  @AfterAll
  static void dropSchemas() throws SQLException {
    try (Connection connection = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = connection.createStatement()) {
      statement.execute("DROP SCHEMA IF EXISTS " + EMPTY + " CASCADE");
      statement.execute("DROP SCHEMA IF EXISTS " + STALE + " CASCADE");
    }
  }

  @Test
  void withoutJpaTheMissingTablesAreReportedWithThePropertyAndTheMigration(CapturedOutput output) {
    Map<String, Object> properties = properties(EMPTY);
    properties.put("outbox.flyway.enabled", "false");

    FailureAnalysis analysis = startupFailure(LedgerApplication.class, properties);

    assertThat(analysis.getDescription())
        .isEqualTo(
            "The outbox cannot start: the tables outbox_messages, outbox_heads and"
                + " outbox_dead_letters do not exist in the PostgreSQL database 'test', schema '"
                + EMPTY
                + "'.");
    assertThat(analysis.getAction())
        .contains("set outbox.create-schema=true")
        .contains("classpath:db/outbox/postgresql (V1__outbox_tables.sql)")
        .contains("Flyway or Liquibase")
        .contains("because outbox.flyway.enabled=false")
        .doesNotContain("OutboxOptions.builder()");
    assertReported(output, analysis);
  }

  @Test
  void withJpaTheMissingTablesOfOtherNamesAreReportedTheSameWay(CapturedOutput output) {
    Map<String, Object> properties = properties(EMPTY);
    properties.put("outbox.outbox-table", "shop_outbox");
    properties.put("outbox.dead-letter-table", "shop_dead_letters");

    FailureAnalysis analysis = startupFailure(ShopApplication.class, properties);

    assertThat(analysis.getDescription())
        .isEqualTo(
            "The outbox cannot start: the tables shop_outbox, shop_outbox_heads and"
                + " shop_dead_letters do not exist in the PostgreSQL database 'test', schema '"
                + EMPTY
                + "'.");
    assertThat(analysis.getAction())
        .contains("set outbox.create-schema=true")
        .contains("classpath:db/outbox/postgresql")
        .contains("only for the default table names")
        .contains("copy the file into your own migrations");
    assertReported(output, analysis);
  }

  @Test
  void tablesLackingColumnsAreNamedWithTheMigrationToCompare(CapturedOutput output) {
    Map<String, Object> properties = properties(STALE);
    properties.put("outbox.flyway.enabled", "false");

    FailureAnalysis analysis = startupFailure(LedgerApplication.class, properties);

    assertThat(analysis.getDescription())
        .startsWith(
            "The outbox cannot start: the tables outbox_messages, outbox_heads and"
                + " outbox_dead_letters lack columns the outbox needs, in the PostgreSQL database"
                + " 'test', schema '"
                + STALE
                + "' (")
        .contains("does not exist");
    assertThat(analysis.getAction())
        .contains("classpath:db/outbox/postgresql (V1__outbox_tables.sql)")
        .contains("outbox.create-schema=true")
        .contains("outbox.outbox-table");
    assertReported(output, analysis);
  }

  private static Map<String, Object> properties(String schema) {
    Map<String, Object> properties = BootTables.database();
    properties.put("spring.datasource.url", BootTables.URL + "?currentSchema=" + schema);
    return properties;
  }

  /**
   * Starts the application, expects the outbox's schema check to fail it, and returns the analysis
   * of that failure.
   */
  private static FailureAnalysis startupFailure(
      Class<?> applicationClass, Map<String, Object> properties) {
    SpringApplication application = new SpringApplication(applicationClass);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.setBannerMode(Banner.Mode.OFF);
    application.setDefaultProperties(properties);

    Throwable failure = catchThrowable(application::run);

    assertThat(failure).as("startup fails").hasRootCauseInstanceOf(SQLException.class);
    assertThat(failure).hasStackTraceContaining(OutboxSchemaException.class.getName());
    MockEnvironment environment = new MockEnvironment();
    properties.forEach((key, value) -> environment.setProperty(key, String.valueOf(value)));
    FailureAnalysis analysis = new OutboxSchemaFailureAnalyzer(environment).analyze(failure);
    assertThat(analysis).as("analysed by the outbox: %s", failure).isNotNull();
    return analysis;
  }

  /** Spring Boot printed this analysis as its short report, and no stack trace of its own. */
  private static void assertReported(CapturedOutput output, FailureAnalysis analysis) {
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains(
            "Description:"
                + System.lineSeparator()
                + System.lineSeparator()
                + analysis.getDescription())
        .contains(
            "Action:" + System.lineSeparator() + System.lineSeparator() + analysis.getAction())
        .doesNotContain("Application run failed");
  }
}
