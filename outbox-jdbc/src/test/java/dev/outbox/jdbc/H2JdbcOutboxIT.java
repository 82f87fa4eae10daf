package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JdbcOutboxIT extends AbstractJdbcOutboxIT {
  H2JdbcOutboxIT() {
    super(TestDatabase.H2);
  }
}
