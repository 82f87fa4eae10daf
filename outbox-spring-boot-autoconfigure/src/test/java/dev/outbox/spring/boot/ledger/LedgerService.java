package dev.outbox.spring.boot.ledger;

import dev.outbox.spring.boot.OutboxEvents;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Opens, credits and transfers through Spring Data JDBC, and sends notices through the outbox. */
@Service
public class LedgerService {

  private final Accounts accounts;
  private final Transfers transfers;
  private final OutboxEvents outboxEvents;

  public LedgerService(Accounts accounts, Transfers transfers, OutboxEvents outboxEvents) {
    this.accounts = accounts;
    this.transfers = transfers;
    this.outboxEvents = outboxEvents;
  }

  /** A new account with {@code steps} events; returns its id. */
  @Transactional
  public long open(String owner, int steps) {
    Account account = new Account(owner);
    for (int i = 0; i < steps; i++) {
      account.step();
    }
    return accounts.save(account).getId();
  }

  /** More events on an existing account, in one transaction. */
  @Transactional
  public void credit(long id, int steps) {
    Account account = accounts.findById(id).orElseThrow();
    for (int i = 0; i < steps; i++) {
      account.step();
    }
    accounts.save(account);
  }

  /**
   * A transfer (its own {@code @DomainEvents} methods) with {@code steps} events; returns its id.
   */
  @Transactional
  public long transfer(String reference, int steps) {
    Transfer transfer = new Transfer(reference);
    for (int i = 0; i < steps; i++) {
      transfer.step();
    }
    return transfers.save(transfer).getId();
  }

  /** Events no aggregate registers, sent through {@link OutboxEvents}. */
  @Transactional
  public void notice(String id, int steps) {
    for (int i = 0; i < steps; i++) {
      outboxEvents.send("ledger-notice", id, new LedgerStepped(id, i));
    }
  }

  /** Opens an account, sends a notice, then fails: the transaction rolls back. */
  @Transactional
  public void openAndFail(String owner) {
    Account account = new Account(owner);
    account.step();
    accounts.save(account);
    outboxEvents.send("ledger-notice", owner, new LedgerStepped(owner, 0));
    throw new IllegalStateException("insufficient funds");
  }
}
