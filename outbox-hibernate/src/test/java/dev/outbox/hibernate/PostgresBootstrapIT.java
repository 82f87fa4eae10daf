package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class PostgresBootstrapIT extends AbstractBootstrapIT {
  PostgresBootstrapIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
