package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

/** The store contract and the JDBC store's own tests on the real MariaDB. */
class MariaDbOutboxStoreIT extends AbstractOutboxStoreIT {
  MariaDbOutboxStoreIT() {
    super(TestDatabase.MARIADB);
  }
}
