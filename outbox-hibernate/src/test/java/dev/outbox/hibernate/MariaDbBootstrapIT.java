package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class MariaDbBootstrapIT extends AbstractBootstrapIT {
  MariaDbBootstrapIT() {
    super(TestDatabase.MARIADB);
  }
}
