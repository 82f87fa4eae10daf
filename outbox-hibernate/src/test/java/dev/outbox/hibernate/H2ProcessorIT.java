package dev.outbox.hibernate;

import dev.outbox.hibernate.testing.TestDatabase;

class H2ProcessorIT extends AbstractProcessorIT {
  H2ProcessorIT() {
    super(TestDatabase.H2);
  }
}
