package dev.outbox.samples.payments;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The names of the sample's tables, all starting with one prefix: its own {@code <prefix>_payments}
 * and {@code <prefix>_merchants}, and the outbox's {@code <prefix>_outbox} (with its heads) and
 * {@code <prefix>_dead_letters}. {@link #recreate} drops them all and creates the sample's own
 * afresh; the outbox creates its tables itself ({@code createSchema(true)}).
 *
 * @param prefix lower-case letters, digits and underscores, starting with a letter
 */
public record PaymentTables(String prefix) {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,39}");

  /** The tables of the demo. */
  public static final PaymentTables DEMO = new PaymentTables("jdbc_sample");

  /**
   * Checks the prefix.
   *
   * @throws IllegalArgumentException when it is not a plain lower-case SQL name
   */
  public PaymentTables {
    Objects.requireNonNull(prefix, "prefix");
    if (!NAME.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "The table prefix must match " + NAME + ", but was \"" + prefix + "\"");
    }
  }

  /**
   * The payments table: one row per payment, its state and what was captured.
   *
   * @return {@code <prefix>_payments}
   */
  public String payments() {
    return prefix + "_payments";
  }

  /**
   * The merchants table: one row per merchant, its balance and entry counter.
   *
   * @return {@code <prefix>_merchants}
   */
  public String merchants() {
    return prefix + "_merchants";
  }

  /**
   * The outbox options naming this sample's outbox tables.
   *
   * @return a builder with the table names and {@code createSchema(true)}, to tune further
   */
  public OutboxOptions.Builder outboxOptions() {
    return OutboxOptions.builder()
        .outboxTable(prefix + "_outbox")
        .deadLetterTable(prefix + "_dead_letters")
        .createSchema(true);
  }

  /**
   * Drops every table of this prefix (leftovers of earlier runs would otherwise be published into
   * this one) and creates the payments and merchants tables, with the merchants in them.
   *
   * @param dataSource the PostgreSQL database
   * @param merchantIds the merchants to create, with a zero balance
   * @throws SQLException when PostgreSQL refuses
   */
  public void recreate(DataSource dataSource, List<String> merchantIds) throws SQLException {
    OutboxOptions outbox = outboxOptions().build();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql :
          List.of(
              "DROP VIEW IF EXISTS " + outbox.publishedView(),
              "DROP TABLE IF EXISTS " + outbox.outboxTable(),
              "DROP TABLE IF EXISTS " + outbox.headTable(),
              "DROP TABLE IF EXISTS " + outbox.deadLetterTable(),
              "DROP TABLE IF EXISTS " + payments(),
              "DROP TABLE IF EXISTS " + merchants(),
              """
              CREATE TABLE %s (
                id      varchar(64)    PRIMARY KEY,
                balance numeric(14, 2) NOT NULL DEFAULT 0,
                entries integer        NOT NULL DEFAULT 0)"""
                  .formatted(merchants()),
              // The CHECK refuses a capture of more than the amount, at the end of the capture's
              // transaction: PaymentService.capture shows that its events go back with it.
              """
              CREATE TABLE %s (
                id          varchar(64)    PRIMARY KEY,
                merchant_id varchar(64)    NOT NULL REFERENCES %s (id),
                amount      numeric(12, 2) NOT NULL,
                captured    numeric(12, 2),
                status      varchar(16)    NOT NULL,
                CONSTRAINT %s_capture_within_amount CHECK (captured <= amount))"""
                  .formatted(payments(), merchants(), prefix))) {
        statement.execute(sql);
      }
      try (PreparedStatement insert =
          connection.prepareStatement("INSERT INTO " + merchants() + " (id) VALUES (?)")) {
        for (String merchantId : merchantIds) {
          insert.setString(1, merchantId);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    }
  }
}
