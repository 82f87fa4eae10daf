package dev.outbox.cli;

/** The tool on PostgreSQL. */
class PostgresOutboxCliIT extends AbstractOutboxCliIT {

  @Override
  CliDatabase.Server server() {
    return CliDatabase.Server.POSTGRESQL;
  }
}
