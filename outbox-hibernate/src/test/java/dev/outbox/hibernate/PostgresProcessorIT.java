package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresProcessorIT extends AbstractProcessorIT {
  PostgresProcessorIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
