package dev.outbox.inbox;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresInboxIT extends AbstractInboxIT {
  PostgresInboxIT() {
    super(TestDatabase.POSTGRESQL);
  }
}
