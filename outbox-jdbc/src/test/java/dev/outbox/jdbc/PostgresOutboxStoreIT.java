package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.LeasedHead;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store contract and the JDBC store's own tests on the real PostgreSQL. */
class PostgresOutboxStoreIT extends AbstractOutboxStoreIT {
  PostgresOutboxStoreIT() {
    super(TestDatabase.POSTGRESQL);
  }

  @Test
  void aContinuedHeadWithItsKeptLeaseLeftKeepsItsDueTimeSoTheUpdateTouchesNoIndex() {
    String aggregate = write(1, 3).get(0);
    List<LeasedHead> first = claim("a", 1);
    Instant before = outbox.availableAt(AGGREGATE_TYPE, aggregate);

    List<LeasedHead> next = store().recordAndClaim(delivered(first), readOn("a"));

    assertThat(next).singleElement().extracting(LeasedHead::lease).isEqualTo(first.get(0).lease());
    assertThat(outbox.availableAt(AGGREGATE_TYPE, aggregate)).isEqualTo(before);
  }
}
