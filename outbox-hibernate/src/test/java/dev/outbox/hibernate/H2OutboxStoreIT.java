package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class H2OutboxStoreIT extends AbstractOutboxStoreIT {
  H2OutboxStoreIT() {
    super(TestDatabase.H2);
  }
}
