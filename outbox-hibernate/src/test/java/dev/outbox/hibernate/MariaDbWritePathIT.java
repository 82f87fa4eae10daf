package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbWritePathIT extends AbstractWritePathIT {
  MariaDbWritePathIT() {
    super(TestDatabase.MARIADB);
  }
}
