package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class H2WritePathIT extends AbstractWritePathIT {
  H2WritePathIT() {
    super(TestDatabase.H2);
  }
}
