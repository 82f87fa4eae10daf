package dev.outbox.inbox;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbInboxIT extends AbstractInboxIT {
  MariaDbInboxIT() {
    super(TestDatabase.MARIADB);
  }
}
