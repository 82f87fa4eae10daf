package dev.outbox.inbox;

import dev.outbox.jdbc.testing.TestDatabase;

class H2InboxIT extends AbstractInboxIT {
  H2InboxIT() {
    super(TestDatabase.H2);
  }
}
