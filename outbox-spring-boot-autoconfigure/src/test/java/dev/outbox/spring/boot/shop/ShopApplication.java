package dev.outbox.spring.boot.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of the Spring Boot tests: orders saved through Spring Data JPA. */
@SpringBootApplication
public class ShopApplication {}
