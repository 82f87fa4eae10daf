package dev.outbox.hibernate.testing;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;
import java.util.Map;

/** Events of the test aggregate. */
public final class TestEvents {
  private TestEvents() {}

  /** Raised by a new order. */
  @EventType("order.placed")
  public record OrderPlaced(long orderId, BigDecimal total) implements DomainEvent {}

  /** Raised by a change of the order's own row; carries headers. */
  @EventType("order.cancelled")
  public record OrderCancelled(long orderId, String reason) implements DomainEvent {
    @Override
    public Map<String, String> headers() {
      return Map.of("correlation-id", "c-" + orderId, "tenant", "acme");
    }
  }

  /** Raised by a change of a child row only. */
  @EventType("order.line-added")
  public record OrderLineAdded(long orderId, String sku) implements DomainEvent {}

  /** No annotation: its type is the simple class name. */
  public record Noted(String text) implements DomainEvent {}

  /** Jackson cannot serialize it: its accessor throws. */
  public record Unserializable(String value) implements DomainEvent {
    @Override
    public String value() {
      throw new IllegalStateException("value is not available");
    }
  }

  /** A value with private fields and no getters: Jackson sees no properties in it. */
  public static final class Money {
    private final long cents;
    private final String currency;

    public Money(long cents, String currency) {
      this.cents = cents;
      this.currency = currency;
    }

    @Override
    public String toString() {
      return cents + " " + currency;
    }
  }

  /** An event whose price Jackson would write as {@code {}} if empty values were allowed. */
  public record PriceChanged(long orderId, Money price) implements DomainEvent {}
}
