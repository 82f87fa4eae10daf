package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class JdbcTest {

  @Test
  void aDeadlockAsPgJdbcReportsItIsRunAgain() {
    // PgJDBC throws a plain PSQLException; only its SQLState says it was a deadlock.
    assertThat(
            Jdbc.rolledBackForAConflict(new PSQLException("deadlock", PSQLState.DEADLOCK_DETECTED)))
        .isTrue();
    assertThat(
            Jdbc.rolledBackForAConflict(
                new PSQLException("serialization", PSQLState.SERIALIZATION_FAILURE)))
        .isTrue();
    assertThat(Jdbc.rolledBackForAConflict(new SQLTransactionRollbackException("mariadb")))
        .isTrue();
  }

  @Test
  void otherFailuresAreNotRunAgain() {
    assertThat(Jdbc.rolledBackForAConflict(new PSQLException("syntax", PSQLState.SYNTAX_ERROR)))
        .isFalse();
    assertThat(Jdbc.rolledBackForAConflict(new SQLException("no state"))).isFalse();
  }
}
