package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.jdbc.JdbcOutbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
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
    JdbcOutbox.Builder jdbc = JdbcOutbox.builder(connections(sessionFactory)).options(options);
    TraceSettings.apply(settings, jdbc);
    OutboxContext context;
    try {
      JdbcOutbox outbox = jdbc.build();
      context = new OutboxContext(options, outbox, new ExplicitSends(outbox, new EventHarvester()));
    } catch (OutboxException e) {
      throw new OutboxException(
          e.getMessage()
              + " Set "
              + OutboxSettings.ENABLED
              + "=false for this persistence unit to run without the outbox.",
          e);
    }
    if (!OutboxContext.register(sessionFactory, context)) {
      return;
    }
    FlushHarvestListener harvest = new FlushHarvestListener(context.sends(), new EventHarvester());
    DeletedAggregateCapture capture = new DeletedAggregateCapture();

    EventListenerRegistry listeners =
        sessionFactory.getServiceRegistry().requireService(EventListenerRegistry.class);
    listeners.addDuplicationStrategy(KeepFirstOutboxListener.INSTANCE);
    listeners.prependListeners(EventType.FLUSH, capture);
    listeners.prependListeners(EventType.AUTO_FLUSH, capture);
    listeners.appendListeners(EventType.FLUSH, harvest);
    listeners.appendListeners(EventType.AUTO_FLUSH, harvest);
    listeners.appendListeners(EventType.MERGE, new MergeEventsListener());
    LOG.info("Outbox integrated: {}", context.jdbc());
  }

  @Override
  public void disintegrate(
      SessionFactoryImplementor sessionFactory, SessionFactoryServiceRegistry serviceRegistry) {
    OutboxContext.unregister(sessionFactory);
  }

  private static boolean isEnabled(Object value) {
    return value == null || !"false".equalsIgnoreCase(value.toString().strip());
  }

  /**
   * The session factory's connections: the data source behind its connection provider when it has
   * one (no proxy on the store's hot path), else the provider's, or, in a multi-tenant persistence
   * unit, those of the bootstrap access (enough to check the tables; a store needs the provider).
   */
  private static DataSource connections(SessionFactoryImplementor sessionFactory) {
    ConnectionProvider provider =
        sessionFactory.getServiceRegistry().getService(ConnectionProvider.class);
    if (provider != null && provider.isUnwrappableAs(DataSource.class)) {
      return provider.unwrap(DataSource.class); // its connections go back to the pool on close()
    }
    if (provider != null) {
      return new ProviderDataSource(
          new ProviderDataSource.Connections() {
            @Override
            public Connection obtain() throws SQLException {
              return provider.getConnection();
            }

            @Override
            public void release(Connection connection) throws SQLException {
              provider.closeConnection(connection);
            }
          });
    }
    JdbcConnectionAccess access =
        sessionFactory.getJdbcServices().getBootstrapJdbcConnectionAccess();
    return new ProviderDataSource(
        new ProviderDataSource.Connections() {
          @Override
          public Connection obtain() throws SQLException {
            return access.obtainConnection();
          }

          @Override
          public void release(Connection connection) throws SQLException {
            access.releaseConnection(connection);
          }
        });
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
