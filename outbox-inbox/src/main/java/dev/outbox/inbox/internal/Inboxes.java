package dev.outbox.inbox.internal;

import dev.outbox.OutboxException;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/** Makes inboxes: the one public door into this package, used by {@link Inbox#create}. */
public final class Inboxes {

  private Inboxes() {}

  /**
   * Connects once to learn the database and check (or create) the tables, and makes the inbox.
   *
   * @param dataSource the consumer's database
   * @param options the options
   * @return the inbox
   * @throws OutboxException when the database is unreachable or unsupported, or the tables are
   *     missing or lack columns
   */
  public static Inbox create(DataSource dataSource, InboxOptions options) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(options, "options");
    try (Connection connection = dataSource.getConnection()) {
      InboxDialect dialect =
          InboxDialect.of(connection.getMetaData().getDatabaseProductName(), options);
      new InboxSchema(dialect, options).prepare(connection);
      return new JdbcInbox(new Connections(dataSource, dialect), options, dialect);
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + options.source()
              + "' cannot check its tables "
              + options.positionsTable()
              + " and "
              + options.receivedIdsTable()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
