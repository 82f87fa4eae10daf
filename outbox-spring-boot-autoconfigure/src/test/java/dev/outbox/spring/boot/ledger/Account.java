package dev.outbox.spring.boot.ledger;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.domain.AbstractAggregateRoot;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A Spring Data JDBC aggregate with Spring Data's own domain events ({@code @DomainEvents} of
 * {@link AbstractAggregateRoot}): aggregate type {@code Account}, id the generated {@code @Id}.
 */
@Table("boot_ledger_accounts")
public class Account extends AbstractAggregateRoot<Account> {

  @Id private Long id;
  private String owner;
  private long steps;

  @PersistenceCreator
  Account() {}

  /** A new account, audited in-process. */
  public Account(String owner) {
    this.owner = owner;
    andEvent(new AccountAudited(owner));
  }

  /** Counts a step and raises its event. */
  public void step() {
    andEvent(new LedgerStepped(owner, steps++));
  }

  public Long getId() {
    return id;
  }
}
