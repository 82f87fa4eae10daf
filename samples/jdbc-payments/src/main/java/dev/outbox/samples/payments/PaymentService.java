package dev.outbox.samples.payments;

import dev.outbox.OutboxException;
import dev.outbox.jdbc.JdbcOutbox;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Changes payments and merchants in plain JDBC transactions, and sends the events of each change
 * with {@link JdbcOutbox} on the same connection: they are written with the change, delivered once
 * it commits, and never if it rolls back. Each method is one transaction ({@link
 * JdbcOutbox#inTransaction}, which also hands the events to this JVM's processor at the commit).
 */
public final class PaymentService {

  /** The aggregate type of payments: the routing and ordering key together with the id. */
  public static final String PAYMENT = "Payment";

  /** The aggregate type of merchants. */
  public static final String MERCHANT = "Merchant";

  /** PostgreSQL's SQLSTATE for a violated CHECK constraint. */
  private static final String CHECK_VIOLATION = "23514";

  private final JdbcOutbox outbox;
  private final PaymentTables tables;

  /**
   * A service on the outbox and the tables.
   *
   * @param outbox the outbox, bound by {@code JdbcOutboxModule}
   * @param tables the table names
   */
  @Inject
  public PaymentService(JdbcOutbox outbox, PaymentTables tables) {
    this.outbox = outbox;
    this.tables = tables;
  }

  /**
   * Opens a payment: one row and a {@link PaymentRequested}, in one transaction.
   *
   * @param paymentId the new payment's id
   * @param merchantId the merchant it pays
   * @param amount how much
   */
  public void request(String paymentId, String merchantId, BigDecimal amount) {
    outbox.inTransaction(
        connection -> {
          update(
              connection,
              "INSERT INTO "
                  + tables.payments()
                  + " (id, merchant_id, amount, status)"
                  + " VALUES (?, ?, ?, 'REQUESTED')",
              paymentId,
              merchantId,
              amount);
          outbox.send(
              connection,
              PAYMENT,
              paymentId,
              new PaymentRequested(paymentId, merchantId, amount, 1));
          return null;
        });
  }

  /**
   * Authorizes a requested payment and sends {@link PaymentAuthorized}, in one transaction.
   *
   * @param paymentId the payment
   * @throws IllegalStateException when there is no requested payment with that id
   */
  public void authorize(String paymentId) {
    outbox.inTransaction(
        connection -> {
          int updated =
              update(
                  connection,
                  "UPDATE "
                      + tables.payments()
                      + " SET status = 'AUTHORIZED'"
                      + " WHERE id = ? AND status = 'REQUESTED'",
                  paymentId);
          if (updated != 1) {
            throw new IllegalStateException("No requested payment " + paymentId + " to authorize");
          }
          outbox.send(connection, PAYMENT, paymentId, new PaymentAuthorized(paymentId, 2));
          return null;
        });
  }

  /**
   * Captures an authorized payment and credits its merchant in one transaction, with one event for
   * each of the two aggregates, sent together in one batch (their heads are locked in sorted order,
   * so concurrent captures do not deadlock). The payment row is updated last: when the database
   * refuses it (more captured than the amount), the transaction rolls back with the merchant's
   * credit and both events, and nothing is ever delivered for it.
   *
   * @param paymentId the payment
   * @param amount how much to capture
   * @return {@code true} when captured; {@code false} when the database refused the capture and
   *     nothing was written
   * @throws IllegalStateException when there is no authorized payment with that id
   */
  public boolean capture(String paymentId, BigDecimal amount) {
    try {
      outbox.inTransaction(
          connection -> {
            String merchantId = authorizedMerchant(connection, paymentId);
            int entry = credit(connection, merchantId, amount);
            outbox
                .batch()
                .add(PAYMENT, paymentId, new PaymentCaptured(paymentId, amount, 3))
                .add(
                    MERCHANT,
                    merchantId,
                    new MerchantCredited(merchantId, paymentId, amount, entry))
                .send(connection);
            update(
                connection,
                "UPDATE "
                    + tables.payments()
                    + " SET status = 'CAPTURED', captured = ? WHERE id = ?",
                amount,
                paymentId);
            return null;
          });
      return true;
    } catch (OutboxException e) {
      if (e.getCause() instanceof SQLException sql && CHECK_VIOLATION.equals(sql.getSQLState())) {
        return false;
      }
      throw e;
    }
  }

  /** The merchant of an authorized payment, whose row stays locked until the commit. */
  private String authorizedMerchant(Connection connection, String paymentId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT merchant_id FROM "
                + tables.payments()
                + " WHERE id = ? AND status = 'AUTHORIZED' FOR UPDATE")) {
      select.setString(1, paymentId);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("No authorized payment " + paymentId + " to capture");
        }
        return row.getString(1);
      }
    }
  }

  /**
   * Adds to a merchant's balance and counts the entry. The row lock orders the merchant's
   * transactions, and with them its entry numbers and its events.
   */
  private int credit(Connection connection, String merchantId, BigDecimal amount)
      throws SQLException {
    try (PreparedStatement credit =
        connection.prepareStatement(
            "UPDATE "
                + tables.merchants()
                + " SET balance = balance + ?, entries = entries + 1 WHERE id = ?"
                + " RETURNING entries")) {
      credit.setBigDecimal(1, amount);
      credit.setString(2, merchantId);
      try (ResultSet row = credit.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("No merchant " + merchantId);
        }
        return row.getInt(1);
      }
    }
  }

  private static int update(Connection connection, String sql, Object... parameters)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement.executeUpdate();
    }
  }
}
