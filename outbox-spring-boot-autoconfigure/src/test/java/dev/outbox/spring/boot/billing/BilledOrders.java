package dev.outbox.spring.boot.billing;

import org.springframework.data.jpa.repository.JpaRepository;

/** The billed orders. */
public interface BilledOrders extends JpaRepository<BilledOrder, String> {}
