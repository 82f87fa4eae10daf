package dev.outbox.spi;

import java.util.Objects;

/**
 * A processor's hold on one aggregate's head: the aggregate and the token its grant stamped on the
 * head. Every write a processor makes to a head checks the token, so a holder whose lease was taken
 * over changes nothing.
 *
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param token the head's lease token at the grant; grants increment it
 */
public record Lease(String aggregateType, String aggregateId, long token) {

  /** Checks the components. */
  public Lease {
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
  }

  @Override
  public String toString() {
    return aggregateType + '/' + aggregateId + '#' + token;
  }
}
