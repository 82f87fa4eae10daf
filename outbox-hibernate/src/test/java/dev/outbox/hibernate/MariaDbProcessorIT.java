package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class MariaDbProcessorIT extends AbstractProcessorIT {
  MariaDbProcessorIT() {
    super(TestDatabase.MARIADB);
  }
}
