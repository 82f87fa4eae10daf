package dev.outbox.spring.boot;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.jdbc.OutboxTables;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryDependsOnPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * With Flyway on the classpath, runs the outbox's shipped migration ({@code
 * classpath:db/outbox/<database>}) before the outbox's tables are first used: before the entity
 * manager factory is built with JPA, before the {@link JdbcOutbox} bean without it. It has a
 * history table of its own ({@code outbox_schema_history}) so that its versions never collide with
 * the application's; an existing schema is baselined at version 0. Only for the default table
 * names, which the shipped file creates; with other names, copy the file into your migrations (or
 * use {@code outbox.create-schema=true} in development). {@code outbox.flyway.enabled=false} skips
 * it.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    before = OutboxAutoConfiguration.class)
@ConditionalOnClass(Flyway.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "outbox.flyway.enabled", matchIfMissing = true)
public class OutboxFlywayAutoConfiguration {

  /** The history table of the outbox's own migrations. */
  public static final String HISTORY_TABLE = "outbox_schema_history";

  private static final String MIGRATION = "outboxMigration";
  private static final String APPLICATION_MIGRATION = "flywayInitializer";

  private static final Logger LOG = LoggerFactory.getLogger(OutboxFlywayAutoConfiguration.class);

  @Bean
  OutboxMigration outboxMigration(DataSource dataSource, OutboxOptions options) {
    return new OutboxMigration(dataSource, options);
  }

  /**
   * Runs the application's own Flyway migration (Spring Boot's {@code flywayInitializer}) first,
   * when there is one: on a fresh database it must find the schema empty, or it refuses to start
   * without a baseline; the outbox's migration baselines an existing schema by itself.
   */
  @Bean
  static BeanFactoryPostProcessor outboxMigrationAfterTheApplications() {
    return factory -> {
      if (factory.containsBeanDefinition(APPLICATION_MIGRATION)
          && factory.containsBeanDefinition(MIGRATION)) {
        dependsOn(factory.getBeanDefinition(MIGRATION), APPLICATION_MIGRATION);
      }
    };
  }

  /** Builds every {@link JdbcOutbox} bean, which checks the tables, only after the migration. */
  @Bean
  static BeanFactoryPostProcessor jdbcOutboxAfterMigration() {
    return factory -> {
      if (factory.containsBeanDefinition(MIGRATION)) {
        for (String name : factory.getBeanNamesForType(JdbcOutbox.class, true, false)) {
          if (factory.containsBeanDefinition(name)) {
            dependsOn(factory.getBeanDefinition(name), MIGRATION);
          }
        }
      }
    };
  }

  private static void dependsOn(BeanDefinition bean, String other) {
    String[] before = bean.getDependsOn();
    List<String> dependsOn = new ArrayList<>(before == null ? List.of() : List.of(before));
    dependsOn.add(other);
    bean.setDependsOn(dependsOn.toArray(String[]::new));
  }

  /** With JPA: builds the entity manager factory only after the migration ran. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name =
          "org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryDependsOnPostProcessor")
  @Import(EntityManagerFactoryAfterMigration.class)
  static class Jpa {}

  /** Builds the entity manager factory only after the migration ran. */
  static class EntityManagerFactoryAfterMigration
      extends EntityManagerFactoryDependsOnPostProcessor {
    EntityManagerFactoryAfterMigration() {
      super(MIGRATION);
    }
  }

  /** The migration, run when the bean is created. */
  public static final class OutboxMigration {

    OutboxMigration(DataSource dataSource, OutboxOptions options) {
      OutboxOptions defaults = OutboxOptions.builder().build();
      if (!options.outboxTable().equals(defaults.outboxTable())
          || !options.deadLetterTable().equals(defaults.deadLetterTable())) {
        LOG.info(
            "Outbox tables {}/{} are not the shipped migration's: not running it (copy the migration"
                + " with your names into your own, or set outbox.create-schema=true)",
            options.outboxTable(),
            options.deadLetterTable());
        return;
      }
      Flyway.configure(OutboxFlywayAutoConfiguration.class.getClassLoader())
          .dataSource(dataSource)
          .locations(OutboxTables.migrationLocation(dataSource))
          .table(HISTORY_TABLE)
          .baselineOnMigrate(true)
          .baselineVersion("0")
          .load()
          .migrate();
    }
  }
}
