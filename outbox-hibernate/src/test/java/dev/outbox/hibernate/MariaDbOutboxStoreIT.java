package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbOutboxStoreIT extends AbstractOutboxStoreIT {
  MariaDbOutboxStoreIT() {
    super(TestDatabase.MARIADB);
  }
}
