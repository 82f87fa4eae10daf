package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class H2OutboxStoreIT extends AbstractOutboxStoreIT {
  H2OutboxStoreIT() {
    super(TestDatabase.H2);
  }
}
