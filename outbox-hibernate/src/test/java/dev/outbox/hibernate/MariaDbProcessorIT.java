package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbProcessorIT extends AbstractProcessorIT {
  MariaDbProcessorIT() {
    super(TestDatabase.MARIADB);
  }
}
