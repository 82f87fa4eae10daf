package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJdbcOutboxIT extends AbstractJdbcOutboxIT {
  MariaDbJdbcOutboxIT() {
    super(TestDatabase.MARIADB);
  }
}
