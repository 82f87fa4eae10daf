package dev.outbox.hibernate.testing;

import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/** Builds session factories for the tests through the standard JPA bootstrap. */
public final class Emfs {
  /** The Hibernate setting for the entity tables: drop-and-create unless a test says otherwise. */
  public static final String SCHEMA_ACTION =
      "jakarta.persistence.schema-generation.database.action";

  private Emfs() {}

  /** A JPA entity manager factory for the test entities on the data source. */
  public static SessionFactory create(DataSource dataSource, OutboxOptions options) {
    return create(dataSource, Map.of(OutboxSettings.OPTIONS, options));
  }

  /** The same with any extra settings. */
  public static SessionFactory create(DataSource dataSource, Map<String, Object> settings) {
    HibernatePersistenceConfiguration configuration =
        new HibernatePersistenceConfiguration("outbox-test")
            .managedClasses(PurchaseOrder.class, OrderLine.class, Shipment.class)
            .property("hibernate.connection.datasource", dataSource)
            .property(SCHEMA_ACTION, "drop-and-create");
    settings.forEach(configuration::property);
    return configuration.createEntityManagerFactory();
  }
}
