package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresWritePathIT extends AbstractWritePathIT {
  PostgresWritePathIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
