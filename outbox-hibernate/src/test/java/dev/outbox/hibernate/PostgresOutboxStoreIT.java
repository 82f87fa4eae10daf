package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class PostgresOutboxStoreIT extends AbstractOutboxStoreIT {
  PostgresOutboxStoreIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
