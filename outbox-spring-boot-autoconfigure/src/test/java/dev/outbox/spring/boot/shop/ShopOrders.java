package dev.outbox.spring.boot.shop;

import org.springframework.data.jpa.repository.JpaRepository;

/** The orders, a Spring Data repository. */
public interface ShopOrders extends JpaRepository<ShopOrder, String> {}
