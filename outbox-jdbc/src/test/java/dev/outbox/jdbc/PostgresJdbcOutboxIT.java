package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresJdbcOutboxIT extends AbstractJdbcOutboxIT {
  PostgresJdbcOutboxIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
