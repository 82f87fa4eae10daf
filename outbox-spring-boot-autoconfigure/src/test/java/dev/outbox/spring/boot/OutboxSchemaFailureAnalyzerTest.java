package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxException;
import dev.outbox.jdbc.OutboxSchemaException;
import dev.outbox.jdbc.OutboxSchemaException.Problem;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.mock.env.MockEnvironment;

/** The report's wording for the cases the startup ITs do not reach. */
class OutboxSchemaFailureAnalyzerTest {

  private final OutboxSchemaFailureAnalyzer analyzer =
      new OutboxSchemaFailureAnalyzer(new MockEnvironment());

  @Test
  void oneMissingTableOfTheDefaultNamesBlamesTheMigrationHistory() {
    OutboxSchemaException schema =
        new OutboxSchemaException(
            "The outbox table 'outbox_heads' does not exist.",
            Problem.MISSING_TABLES,
            List.of("outbox_heads"),
            "PostgreSQL database 'shop', schema 'public'",
            "db/outbox/postgresql/V1__outbox_tables.sql",
            new SQLException("ERROR: relation \"outbox_heads\" does not exist"));
    // As Hibernate's bootstrap wraps it, inside Spring's bean creation failure.
    Throwable failure =
        new BeanCreationException(
            "entityManagerFactory", "Unable to build", new OutboxException("wrapped", schema));

    FailureAnalysis analysis = analyzer.analyze(failure);

    assertThat(analysis.getDescription())
        .isEqualTo(
            "The outbox cannot start: the table outbox_heads does not exist in the PostgreSQL"
                + " database 'shop', schema 'public'.");
    assertThat(analysis.getAction())
        .contains("set outbox.create-schema=true")
        .contains("classpath:db/outbox/postgresql (V1__outbox_tables.sql)")
        .contains("drop outbox_schema_history too");
    assertThat(analysis.getCause()).isSameAs(schema);
  }

  @Test
  void otherOutboxFailuresAreLeftToTheOtherAnalyzers() {
    assertThat(analyzer.analyze(new BeanCreationException("outbox", new OutboxException("no"))))
        .isNull();
  }
}
