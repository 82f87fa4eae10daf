package dev.outbox.spring.boot.ledger;

import java.util.ArrayList;
import java.util.List;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.annotation.Transient;
import org.springframework.data.domain.AfterDomainEventPublication;
import org.springframework.data.domain.DomainEvents;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A Spring Data JDBC aggregate with {@code @DomainEvents} methods of its own (no base class): type
 * {@code Transfer}, id the generated {@code @Id}.
 */
@Table("boot_ledger_transfers")
public class Transfer {

  @Transient private final List<LedgerStepped> events = new ArrayList<>();

  @Id private Long id;
  private String reference;
  private long steps;

  @PersistenceCreator
  Transfer() {}

  public Transfer(String reference) {
    this.reference = reference;
  }

  /** Counts a step and raises its event. */
  public void step() {
    events.add(new LedgerStepped(reference, steps++));
  }

  public Long getId() {
    return id;
  }

  @DomainEvents
  List<LedgerStepped> events() {
    return List.copyOf(events);
  }

  @AfterDomainEventPublication
  void clearEvents() {
    events.clear();
  }
}
