package dev.outbox.hibernate;

import dev.outbox.jdbc.testing.TestDatabase;

class H2ProcessorIT extends AbstractProcessorIT {
  H2ProcessorIT() {
    super(TestDatabase.H2);
  }
}
