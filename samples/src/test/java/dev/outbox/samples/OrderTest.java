package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.DomainEvent;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderTest {

  private static final OrderLine.Item ITEM = new OrderLine.Item("SKU-1", 2, new BigDecimal("1.50"));

  @Test
  void eachEventOfAnOrderCarriesTheNextSequenceNumber() {
    Order order = Order.place("o1", "alice", List.of(ITEM, ITEM));
    order.addLine(ITEM);
    order.addLine(ITEM);
    order.cancel("changed mind");

    assertThat(order.domainEvents()).extracting(OrderTest::sequence).containsExactly(1, 2, 3, 4);
    assertThat(order.domainEvents().get(0)).isInstanceOf(OrderPlaced.class);
    assertThat(((OrderPlaced) order.domainEvents().get(0)).total()).isEqualByComparingTo("6.00");
    assertThat(order.domainEvents().get(1).eventType()).isEqualTo("order.line-added");
  }

  @Test
  void aCancelledOrderTakesNoMoreLines() {
    Order order = Order.place("o1", "alice", List.of(ITEM));
    order.cancel("changed mind");

    assertThatThrownBy(() -> order.addLine(ITEM)).hasMessage("order o1 is cancelled");
  }

  private static int sequence(DomainEvent event) {
    if (event instanceof OrderPlaced placed) {
      return placed.sequence();
    }
    if (event instanceof OrderLineAdded added) {
      return added.sequence();
    }
    return event instanceof OrderCancelled cancelled ? cancelled.sequence() : -1;
  }
}
