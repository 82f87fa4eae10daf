package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class H2BootstrapIT extends AbstractBootstrapIT {
  H2BootstrapIT() {
    super(TestDatabase.H2);
  }
}
