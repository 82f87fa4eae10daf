package dev.outbox.spring.boot.ledger;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;

/**
 * The application of the tests without JPA: a DataSource, Spring Data JDBC repositories and
 * {@code @Transactional} services. JPA is on the test classpath, so its auto-configuration is
 * excluded: no EntityManagerFactory.
 */
@SpringBootApplication(
    exclude = {HibernateJpaAutoConfiguration.class, DataJpaRepositoriesAutoConfiguration.class})
public class LedgerApplication {}
