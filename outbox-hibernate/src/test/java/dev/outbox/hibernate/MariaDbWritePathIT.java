package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class MariaDbWritePathIT extends AbstractWritePathIT {
  MariaDbWritePathIT() {
    super(TestDatabase.MARIADB);
  }
}
