package com.example.orders;

import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

/** The orders, through Spring Data JPA: saving one writes its events in the same flush. */
public interface OrderRepository extends JpaRepository<Order, UUID> {}
