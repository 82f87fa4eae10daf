package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class MariaDbOutboxStoreIT extends AbstractOutboxStoreIT {
  MariaDbOutboxStoreIT() {
    super(TestDatabase.MARIADB);
  }
}
