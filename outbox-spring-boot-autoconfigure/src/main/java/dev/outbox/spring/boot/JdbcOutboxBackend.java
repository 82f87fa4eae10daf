package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.EventBatch;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The outbox of an application with a {@code DataSource} and no JPA: a {@link JdbcOutbox} writing
 * on the connection Spring's transaction holds for that data source.
 */
final class JdbcOutboxBackend implements OutboxBackend {

  private final JdbcOutbox outbox;
  private final DataSource dataSource;

  JdbcOutboxBackend(JdbcOutbox outbox, DataSource dataSource) {
    this.outbox = outbox;
    this.dataSource = dataSource;
  }

  @Override
  public OutboxStore store() {
    return outbox.store();
  }

  @Override
  public Outbox outbox(EventPublisher publisher, OutboxOptions options) {
    return outbox.outbox(publisher);
  }

  @Override
  public Outbox connectorDelivers() {
    return outbox.outbox();
  }

  @Override
  public void send(String aggregateType, String aggregateId, List<? extends DomainEvent> events) {
    OutboxBackend.requireTransaction(events.size());
    EventBatch batch = outbox.batch();
    for (DomainEvent event : events) {
      batch.add(aggregateType, aggregateId, event);
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
        throw new OutboxException(
            "Cannot send "
                + events.size()
                + " outbox event(s): the active Spring transaction does not manage the outbox's"
                + " DataSource. Run the @Transactional method with that DataSource's transaction"
                + " manager (JdbcTransactionManager / DataSourceTransactionManager). Nothing was"
                + " sent.");
      }
      batch.send(connection);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  @Override
  public boolean harvests(Class<?> entityType) {
    return false;
  }

  @Override
  public String toString() {
    return "OutboxEvents[" + outbox + ']';
  }
}
