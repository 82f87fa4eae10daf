package dev.outbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.IncomingMessage;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.RequiredServer;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** An inbox on PostgreSQL counts what it did with each message on the registry. */
class InboxMetricsIT {

  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String positions = "metrics_positions_" + suffix;
  private final String ids = "metrics_ids_" + suffix;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private PGSimpleDataSource dataSource;

  @AfterEach
  void dropTables() throws SQLException {
    if (dataSource != null) {
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("DROP TABLE IF EXISTS " + positions);
        statement.execute("DROP TABLE IF EXISTS " + ids);
      }
    }
  }

  @Test
  void appliedDuplicateAndGapAreCountedBySourceOutcomeAndAggregateType() {
    RequiredServer.assumePostgres();
    dataSource = new PGSimpleDataSource();
    dataSource.setURL("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    try (Inbox inbox =
        Inbox.create(
            dataSource,
            InboxOptions.builder()
                .source("billing")
                .positionsTable(positions)
                .receivedIdsTable(ids)
                .createSchema(true)
                .build(),
            new InboxMetrics(registry, Tags.of("service", "test")))) {
      inbox.receive(message(1, 0), (connection, m) -> {});
      inbox.receive(message(1, 0), (connection, m) -> {});
      inbox.receive(message(3, 2), (connection, m) -> {});
      inbox.receive(
          IncomingMessage.of(Map.of("x", "1"), new byte[0], "foreign-1"), (connection, m) -> {});
    }

    assertThat(count("applied", "Order")).isEqualTo(1);
    assertThat(count("duplicate", "Order")).isEqualTo(1);
    assertThat(count("gap", "Order")).isEqualTo(1);
    assertThat(count("applied", "none")).as("a message without seq, by its id").isEqualTo(1);
    assertThat(registry.get("outbox.inbox.messages").tag("service", "test").counters()).hasSize(4);
  }

  private double count(String outcome, String aggregateType) {
    return registry
        .get("outbox.inbox.messages")
        .tags("source", "billing", "outcome", outcome, "aggregate.type", aggregateType)
        .counter()
        .count();
  }

  private static IncomingMessage message(long seq, long prevSeq) {
    return IncomingMessage.of(
        Map.of(
            WireHeaders.MESSAGE_ID,
            "m-" + seq + "-" + UUID.randomUUID(),
            WireHeaders.AGGREGATE_TYPE,
            "Order",
            WireHeaders.AGGREGATE_ID,
            "o-1",
            WireHeaders.SEQ,
            Long.toString(seq),
            WireHeaders.EPOCH,
            "1",
            WireHeaders.PREV_SEQ,
            Long.toString(prevSeq)),
        new byte[0],
        null);
  }
}
