package dev.outbox.spring.boot.ledger;

import org.springframework.data.repository.ListCrudRepository;

/** The accounts, a Spring Data JDBC repository. */
public interface Accounts extends ListCrudRepository<Account, Long> {}
