package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresBootstrapIT extends AbstractBootstrapIT {
  PostgresBootstrapIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
