package dev.outbox.hibernate.testing;

import dev.outbox.AggregateRoot;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An aggregate keyed on the wire by a business key, its tracking number, not by its entity id. */
@Entity
@Table(name = "test_shipments")
public class Shipment extends AggregateRoot {

  @Id private Long id;
  private String trackingNumber;

  protected Shipment() {}

  /**
   * A shipment that announces itself.
   *
   * @param id the entity id
   * @param trackingNumber the business key; {@code null} when not known yet
   */
  public static Shipment ship(long id, String trackingNumber) {
    Shipment shipment = new Shipment();
    shipment.id = id;
    shipment.trackingNumber = trackingNumber;
    shipment.registerEvent(new TestEvents.Noted("shipped"));
    return shipment;
  }

  @Override
  public String aggregateId() {
    return trackingNumber;
  }
}
