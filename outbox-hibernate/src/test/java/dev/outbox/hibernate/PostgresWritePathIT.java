package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class PostgresWritePathIT extends AbstractWritePathIT {
  PostgresWritePathIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
