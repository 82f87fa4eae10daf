package dev.outbox.hibernate.internal;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The connections of a session factory as a {@link DataSource}, for the JDBC outbox: closing one
 * gives it back to where it came from (Hibernate's own pool closes nothing on {@code close()}, it
 * takes connections back through its provider).
 */
final class ProviderDataSource implements DataSource {

  /** Where connections come from and go back to. */
  interface Connections {
    Connection obtain() throws SQLException;

    void release(Connection connection) throws SQLException;
  }

  private final Connections connections;

  ProviderDataSource(Connections connections) {
    this.connections = connections;
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection connection = connections.obtain();
    return (Connection)
        Proxy.newProxyInstance(
            ProviderDataSource.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close") && method.getParameterCount() == 0) {
                connections.release(connection);
                return null;
              }
              try {
                return method.invoke(connection, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("The session factory's connections have no login");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new SQLException("Not a wrapper of " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }
}
