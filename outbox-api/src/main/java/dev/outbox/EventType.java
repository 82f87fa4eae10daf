package dev.outbox;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a {@link DomainEvent} class a stable logical name, used on the wire instead of the Java
 * class name so that classes can be renamed or moved without breaking consumers.
 *
 * <pre>{@code
 * @EventType("order.placed")
 * record OrderPlaced(long orderId, BigDecimal total) implements DomainEvent {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface EventType {

  /**
   * The logical event type name.
   *
   * @return a non-blank name, at most 255 characters
   */
  String value();
}
