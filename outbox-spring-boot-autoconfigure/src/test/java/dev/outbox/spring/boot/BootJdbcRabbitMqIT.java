package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxException;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spring.boot.ledger.AccountAudited;
import dev.outbox.spring.boot.ledger.AuditLog;
import dev.outbox.spring.boot.ledger.LedgerApplication;
import dev.outbox.spring.boot.ledger.LedgerService;
import dev.outbox.spring.boot.ledger.LedgerStepped;
import dev.outbox.testkit.RequiredServer;
import jakarta.persistence.EntityManagerFactory;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application with a DataSource, Spring Data JDBC and no JPA, on PostgreSQL and
 * RabbitMQ: the domain events of its aggregates ({@code AbstractAggregateRoot}'s and a plain
 * {@code @DomainEvents} method's) and the events sent through {@link OutboxEvents} arrive once, in
 * order per aggregate; a rollback sends nothing; a send outside a transaction fails and writes
 * nothing; events that are not {@code DomainEvent}s stay in-process.
 */
class BootJdbcRabbitMqIT {

  private static final String OUTBOX_TABLE = "boot_ledger_messages";
  private static BootRabbit rabbit;

  @BeforeAll
  static void servers() throws Exception {
    RequiredServer.assumePostgres();
    BootRabbit.assumeReachable();
    BootTables.drop(OUTBOX_TABLE, "boot_ledger_dead_letters");
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS boot_ledger_accounts");
      statement.execute("DROP TABLE IF EXISTS boot_ledger_transfers");
      statement.execute(
          "CREATE TABLE boot_ledger_accounts (id bigserial PRIMARY KEY, owner varchar(100) NOT"
              + " NULL, steps bigint NOT NULL)");
      statement.execute(
          "CREATE TABLE boot_ledger_transfers (id bigserial PRIMARY KEY, reference varchar(100)"
              + " NOT NULL, steps bigint NOT NULL)");
    }
    rabbit = BootRabbit.open("boot-jdbc-it");
  }

  @AfterAll
  static void close() throws Exception {
    if (rabbit != null) {
      rabbit.close();
    }
  }

  private static ConfigurableApplicationContext start() {
    Map<String, Object> properties = rabbit.outboxProperties();
    properties.put("outbox.outbox-table", OUTBOX_TABLE);
    properties.put("outbox.dead-letter-table", "boot_ledger_dead_letters");
    properties.put("outbox.create-schema", "true");
    return new SpringApplicationBuilder(LedgerApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .run();
  }

  @Test
  void domainEventsAndSendsArriveOnceInOrderPerAggregateWithoutJpa() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    try (ConfigurableApplicationContext app = start()) {
      assertThat(app.getBeanNamesForType(EntityManagerFactory.class)).as("no JPA").isEmpty();
      assertThat(app.getBeansOfType(JdbcOutbox.class)).hasSize(1);

      OutboxEvents outboxEvents = app.getBean(OutboxEvents.class);
      assertThatThrownBy(() -> outboxEvents.send("ledger-notice", run, new LedgerStepped(run, 0)))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("without an active Spring transaction")
          .hasMessageContaining("inside a @Transactional method");

      LedgerService ledger = app.getBean(LedgerService.class);
      assertThatThrownBy(() -> ledger.openAndFail("rolled-back-" + run))
          .hasMessageContaining("insufficient funds");

      Set<String> expected = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        long account = ledger.open("owner-" + run + "-" + i, 3);
        ledger.credit(account, 2);
        expected.add("Account/" + account);
      }
      for (int i = 0; i < 3; i++) {
        expected.add("Transfer/" + ledger.transfer("ref-" + run + "-" + i, 5));
      }
      for (int i = 0; i < 2; i++) {
        ledger.notice("notice-" + run + "-" + i, 5);
        expected.add("ledger-notice/notice-" + run + "-" + i);
      }
      int total = expected.size() * 5;
      assertThat(rowCount())
          .as("each event written once, nothing of the rollback")
          .isEqualTo(total);

      BootRabbit.Received received = rabbit.receive(total);
      assertThat(received.count()).isEqualTo(total);
      assertThat(received.messageIds()).as("each once").hasSize(total);
      assertThat(received.steps().keySet()).containsExactlyInAnyOrderElementsOf(expected);
      received
          .steps()
          .forEach(
              (aggregate, seen) ->
                  assertThat(seen)
                      .as("order of %s", aggregate)
                      .containsExactly(0L, 1L, 2L, 3L, 4L));
      assertThat(rabbit.quiet()).as("nothing more, nothing of the rollback").isTrue();

      List<Object> inProcess = app.getBean(AuditLog.class).events();
      assertThat(inProcess)
          .as("Spring Data still publishes @DomainEvents in-process, the outbox's and the others")
          .filteredOn(AccountAudited.class::isInstance)
          .hasSize(5); // four accounts and the rolled-back one
      assertThat(inProcess)
          .as("the accounts' and transfers' events, and the rolled-back account's")
          .filteredOn(LedgerStepped.class::isInstance)
          .hasSize(4 * 5 + 3 * 5 + 1);
    }
  }

  private static int rowCount() throws Exception {
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + OUTBOX_TABLE)) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
