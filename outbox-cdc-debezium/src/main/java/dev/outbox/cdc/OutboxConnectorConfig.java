package dev.outbox.cdc;

import dev.outbox.OutboxOptions;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The configuration of Debezium's PostgreSQL connector with its outbox event router and {@link
 * OutboxWireHeaders} for an outbox in {@link dev.outbox.DeliveryMode#CDC}: the outbox table only,
 * {@code pgoutput} through a publication and a replication slot you create, key = aggregate id,
 * topic = aggregate type (with an optional prefix), value = the payload as written, and the Kafka
 * adapter's wire headers (seq included).
 *
 * <p>{@link #toMap()} is the {@code config} object of a Kafka Connect connector; {@link
 * #toProperties()} adds nothing and suits Debezium's embedded engine, to which you add its offset
 * storage. The password never appears in {@link #toString()}.
 *
 * <pre>{@code
 * Map<String, String> config = OutboxConnectorConfig.builder(outboxOptions)
 *     .database("db.internal", 5432, "orders")
 *     .user("debezium", System.getenv("DEBEZIUM_PASSWORD"))
 *     .build()
 *     .toMap();
 * }</pre>
 */
public final class OutboxConnectorConfig {

  /** Default of {@link Builder#slot(String)} and {@link Builder#publication(String)}. */
  public static final String DEFAULT_SLOT = "outbox";

  private static final Pattern SLOT = Pattern.compile("[a-z0-9_]{1,63}");
  private static final String ROUTER = "transforms.outbox.";

  private final Map<String, String> config;

  private OutboxConnectorConfig(Map<String, String> config) {
    this.config = Collections.unmodifiableMap(config);
  }

  /**
   * A builder for the tables of these options.
   *
   * @param options the options the persistence unit was built with (their outbox table is read)
   * @return a new builder
   */
  public static Builder builder(OutboxOptions options) {
    return new Builder(options);
  }

  /**
   * The connector's configuration, in the order it was built.
   *
   * @return an unmodifiable map, password included
   */
  public Map<String, String> toMap() {
    return config;
  }

  /**
   * The same as properties, for {@code DebeziumEngine.create(...).using(properties)}.
   *
   * @return a new properties object
   */
  public Properties toProperties() {
    Properties properties = new Properties();
    properties.putAll(config);
    return properties;
  }

  @Override
  public String toString() {
    return config.entrySet().stream()
        .map(e -> e.getKey() + '=' + (e.getKey().endsWith("password") ? "****" : e.getValue()))
        .collect(Collectors.joining(", ", "OutboxConnectorConfig[", "]"));
  }

  /** Builds an {@link OutboxConnectorConfig}; every setter checks its value at once. */
  public static final class Builder {
    private final String table;
    private String name = "outbox-cdc";
    private String hostname;
    private int port = 5432;
    private String database;
    private String user;
    private String password;
    private String slot = DEFAULT_SLOT;
    private String publication = DEFAULT_SLOT;
    private String topicPrefix = "";

    private Builder(OutboxOptions options) {
      String outboxTable = options.outboxTable();
      this.table = outboxTable.contains(".") ? outboxTable : "public." + outboxTable;
    }

    /**
     * The connector's name, which also keys its stored offsets: keep it across restarts.
     *
     * @param name not blank; default {@code outbox-cdc}
     * @return this builder
     */
    public Builder name(String name) {
      this.name = notBlank("name", name);
      return this;
    }

    /**
     * The PostgreSQL server and database holding the outbox table.
     *
     * @param hostname the host
     * @param port 1 to 65535
     * @param database the database name
     * @return this builder
     */
    public Builder database(String hostname, int port, String database) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 1 and 65535, but was " + port);
      }
      this.hostname = notBlank("hostname", hostname);
      this.port = port;
      this.database = notBlank("database", database);
      return this;
    }

    /**
     * The user the connector logs in as: it needs the {@code REPLICATION} attribute and {@code
     * SELECT} on the outbox table.
     *
     * @param user the user
     * @param password the password, or {@code null} where the server trusts the connection
     * @return this builder
     */
    public Builder user(String user, String password) {
      this.user = notBlank("user", user);
      this.password = password;
      return this;
    }

    /**
     * The logical replication slot the connector reads; create it before the application writes
     * ({@code SELECT pg_create_logical_replication_slot('outbox', 'pgoutput')}).
     *
     * @param slot lower-case letters, digits and {@code _}, at most 63; default {@value
     *     #DEFAULT_SLOT}
     * @return this builder
     */
    public Builder slot(String slot) {
      if (slot == null || !SLOT.matcher(slot).matches()) {
        throw new IllegalArgumentException(
            "slot must be lower-case letters, digits and _ (at most 63), but was " + slot);
      }
      this.slot = slot;
      return this;
    }

    /**
     * The publication of the outbox table ({@code CREATE PUBLICATION outbox FOR TABLE
     * outbox_messages}); the connector never creates or alters one.
     *
     * @param publication not blank; default {@value #DEFAULT_SLOT}
     * @return this builder
     */
    public Builder publication(String publication) {
      this.publication = notBlank("publication", publication);
      return this;
    }

    /**
     * A prefix of every topic, before the aggregate type, like the Kafka adapter's {@code
     * topicPrefix}.
     *
     * @param prefix for example {@code orders.}; default none
     * @return this builder
     */
    public Builder topicPrefix(String prefix) {
      if (prefix == null || prefix.contains("$")) {
        throw new IllegalArgumentException("topicPrefix must not be null or contain $: " + prefix);
      }
      this.topicPrefix = prefix;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the configuration
     * @throws IllegalStateException when the database or the user was not set
     */
    public OutboxConnectorConfig build() {
      if (database == null || user == null) {
        throw new IllegalStateException(
            "OutboxConnectorConfig needs database(host, port, name) and user(name, password)");
      }
      Map<String, String> c = new LinkedHashMap<>();
      c.put("name", name);
      c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
      c.put("database.hostname", hostname);
      c.put("database.port", Integer.toString(port));
      c.put("database.dbname", database);
      c.put("database.user", user);
      if (password != null) {
        c.put("database.password", password);
      }
      c.put("topic.prefix", name);
      c.put("plugin.name", "pgoutput");
      c.put("slot.name", slot);
      c.put("publication.name", publication);
      c.put("publication.autocreate.mode", "disabled");
      c.put("table.include.list", table);
      c.put("snapshot.mode", "no_data");
      c.put("tombstones.on.delete", "false");
      c.put("extended.headers.enabled", "false");
      c.put("transforms", "outbox,wire");
      c.put(ROUTER + "type", "io.debezium.transforms.outbox.EventRouter");
      c.put(ROUTER + "table.field.event.id", "id");
      c.put(ROUTER + "table.field.event.key", "aggregate_id");
      c.put(ROUTER + "table.field.event.payload", "payload");
      c.put(ROUTER + "route.by.field", "aggregate_type");
      c.put(ROUTER + "route.topic.replacement", topicPrefix + "${routedByValue}");
      c.put(
          ROUTER + "table.fields.additional.placement",
          OutboxWireHeaders.COLUMNS.stream()
              .map(column -> column + ":header:" + column)
              .collect(Collectors.joining(",")));
      c.put("transforms.wire.type", OutboxWireHeaders.class.getName());
      return new OutboxConnectorConfig(c);
    }

    private static String notBlank(String field, String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(field + " must not be blank, but was " + value);
      }
      return value;
    }
  }
}
