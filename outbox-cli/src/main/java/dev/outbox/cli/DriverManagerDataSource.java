package dev.outbox.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A new connection from {@link DriverManager} for each request: the tool runs a few statements and
 * needs no pool. The password is held here and never printed.
 */
final class DriverManagerDataSource implements DataSource {

  private final String url;
  private final Properties properties = new Properties();
  private int loginTimeoutSeconds;

  DriverManagerDataSource(String url, String user, String password, Duration connectTimeout) {
    this.url = url;
    if (user != null) {
      properties.setProperty("user", user);
    }
    if (password != null) {
      properties.setProperty("password", password);
    }
    this.loginTimeoutSeconds = (int) Math.max(1, connectTimeout.toSeconds());
  }

  @Override
  public Connection getConnection() throws SQLException {
    DriverManager.setLoginTimeout(loginTimeoutSeconds);
    return DriverManager.getConnection(url, properties);
  }

  @Override
  public Connection getConnection(String username, String password) {
    throw new UnsupportedOperationException("the tool connects with --user and --password-env");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {
    // no driver log
  }

  @Override
  public void setLoginTimeout(int seconds) {
    this.loginTimeoutSeconds = seconds;
  }

  @Override
  public int getLoginTimeout() {
    return loginTimeoutSeconds;
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
    throw new SQLException("not a wrapper of " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }

  @Override
  public String toString() {
    return "DriverManagerDataSource[" + JdbcUrls.redact(url) + "]";
  }
}
