package dev.outbox.spring.boot.shop;

import org.springframework.data.repository.ListCrudRepository;

/** The parcels, a Spring Data JDBC repository next to the JPA one. */
public interface ShopParcels extends ListCrudRepository<ShopParcel, Long> {}
