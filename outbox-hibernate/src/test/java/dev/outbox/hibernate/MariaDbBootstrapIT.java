package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbBootstrapIT extends AbstractBootstrapIT {
  MariaDbBootstrapIT() {
    super(TestDatabase.MARIADB);
  }
}
