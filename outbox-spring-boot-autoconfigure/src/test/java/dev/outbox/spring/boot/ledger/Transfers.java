package dev.outbox.spring.boot.ledger;

import org.springframework.data.repository.ListCrudRepository;

/** The transfers, a Spring Data JDBC repository. */
public interface Transfers extends ListCrudRepository<Transfer, Long> {}
