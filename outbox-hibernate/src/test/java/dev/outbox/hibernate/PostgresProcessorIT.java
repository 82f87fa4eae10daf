package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class PostgresProcessorIT extends AbstractProcessorIT {
  PostgresProcessorIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
