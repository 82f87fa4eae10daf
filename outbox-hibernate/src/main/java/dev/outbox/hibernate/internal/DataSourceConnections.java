package dev.outbox.hibernate.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.service.UnknownUnwrapTypeException;

/** The connections of a plain {@link DataSource}, for a store used without a session factory. */
public final class DataSourceConnections implements ConnectionProvider {

  private final DataSource dataSource;

  /**
   * Connections of a data source.
   *
   * @param dataSource where connections come from; closing one gives it back
   */
  public DataSourceConnections(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return dataSource.getConnection();
  }

  @Override
  public void closeConnection(Connection connection) throws SQLException {
    connection.close();
  }

  @Override
  public boolean supportsAggressiveRelease() {
    return false;
  }

  @Override
  public boolean isUnwrappableAs(Class<?> type) {
    return type.isInstance(this) || type.isInstance(dataSource);
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    if (type.isInstance(dataSource)) {
      return type.cast(dataSource);
    }
    throw new UnknownUnwrapTypeException(type);
  }
}
