package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

/** The store contract and the JDBC store's own tests on H2 in memory. */
class H2OutboxStoreIT extends AbstractOutboxStoreIT {
  H2OutboxStoreIT() {
    super(TestDatabase.H2);
  }
}
