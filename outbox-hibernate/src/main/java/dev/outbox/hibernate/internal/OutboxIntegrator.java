package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.JacksonEventSerializer;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.spi.HeaderProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.jdbc.connections.spi.JdbcConnectionAccess;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.DuplicationStrategy;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.service.spi.SessionFactoryServiceRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plugs the outbox into every session factory that has it on the classpath, through {@code
 * META-INF/services/org.hibernate.integrator.spi.Integrator}: reads the options from the settings,
 * checks (or creates) the tables, and registers the flush and merge listeners. Integrating twice
 * with one session factory is harmless. Set {@link OutboxSettings#ENABLED} to {@code false} to turn
 * it off.
 */
public final class OutboxIntegrator implements Integrator {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxIntegrator.class);

  /** Creates the integrator; Hibernate does this through the service loader. */
  public OutboxIntegrator() {}

  @Override
  public void integrate(
      Metadata metadata,
      BootstrapContext bootstrapContext,
      SessionFactoryImplementor sessionFactory) {
    Map<String, Object> settings = bootstrapContext.getConfigurationService().getSettings();
    if (!isEnabled(settings.get(OutboxSettings.ENABLED))) {
      LOG.info("Outbox disabled for this session factory ({}=false)", OutboxSettings.ENABLED);
      return;
    }
    if (OutboxContext.of(sessionFactory) != null) {
      return;
    }
    OutboxOptions options = OptionsResolver.resolve(settings);
    Database database = Database.of(sessionFactory.getJdbcServices().getDialect());
    database.checkSupports(options.deliveryMode());
    prepareSchema(sessionFactory, new SchemaManager(database, options));

    OutboxContext context = new OutboxContext(options, database);
    if (!OutboxContext.register(sessionFactory, context)) {
      return;
    }
    List<HeaderProvider> providers = new ArrayList<>();
    TraceContext.provider(settings).ifPresent(providers::add);
    providers.addAll(options.headerProviders());
    EventHarvester harvester =
        new EventHarvester(
            options.serializer().orElseGet(JacksonEventSerializer::new),
            new RowHeaders(providers),
            Clock.systemUTC());
    FlushWriter writer = new FlushWriter(database, options.headTable(), options.outboxTable());
    FlushHarvestListener harvest = new FlushHarvestListener(context, harvester, writer);
    DeletedAggregateCapture capture = new DeletedAggregateCapture();

    EventListenerRegistry listeners =
        sessionFactory.getServiceRegistry().requireService(EventListenerRegistry.class);
    listeners.addDuplicationStrategy(KeepFirstOutboxListener.INSTANCE);
    listeners.prependListeners(EventType.FLUSH, capture);
    listeners.prependListeners(EventType.AUTO_FLUSH, capture);
    listeners.appendListeners(EventType.FLUSH, harvest);
    listeners.appendListeners(EventType.AUTO_FLUSH, harvest);
    listeners.appendListeners(EventType.MERGE, new MergeEventsListener());
    LOG.info("Outbox integrated: {} on {}", options.outboxTable(), database);
  }

  @Override
  public void disintegrate(
      SessionFactoryImplementor sessionFactory, SessionFactoryServiceRegistry serviceRegistry) {
    OutboxContext.unregister(sessionFactory);
  }

  private static boolean isEnabled(Object value) {
    return value == null || !"false".equalsIgnoreCase(value.toString().strip());
  }

  private static void prepareSchema(
      SessionFactoryImplementor sessionFactory, SchemaManager schema) {
    JdbcConnectionAccess access =
        sessionFactory.getJdbcServices().getBootstrapJdbcConnectionAccess();
    Connection connection = null;
    try {
      connection = access.obtainConnection();
      schema.prepare(connection);
    } catch (SQLException e) {
      throw new OutboxException("Cannot check the outbox tables: " + e.getMessage(), e);
    } finally {
      if (connection != null) {
        try {
          access.releaseConnection(connection);
        } catch (SQLException e) {
          LOG.debug("Could not release the schema-check connection", e);
        }
      }
    }
  }

  /** Keeps the first outbox listener of a kind when one is registered twice. */
  private enum KeepFirstOutboxListener implements DuplicationStrategy {
    INSTANCE;

    @Override
    public boolean areMatch(Object listener, Object original) {
      return listener.getClass() == original.getClass()
          && listener.getClass().getPackage() == OutboxIntegrator.class.getPackage();
    }

    @Override
    public Action getAction() {
      return Action.KEEP_ORIGINAL;
    }
  }
}
