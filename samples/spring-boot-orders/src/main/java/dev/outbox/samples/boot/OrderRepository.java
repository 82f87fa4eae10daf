package dev.outbox.samples.boot;

import org.springframework.data.jpa.repository.JpaRepository;

/** The orders: a plain Spring Data repository; the outbox needs nothing here. */
public interface OrderRepository extends JpaRepository<Order, Long> {}
