package dev.outbox.hibernate;

/**
 * Hibernate settings read by the outbox integrator. Pass them in the properties map of {@code
 * Persistence.createEntityManagerFactory(unit, properties)}, in {@code persistence.xml}, or with
 * {@code StandardServiceRegistryBuilder.applySetting}.
 *
 * <pre>{@code
 * OutboxOptions options = OutboxOptions.builder().createSchema(true).build();
 * EntityManagerFactory emf = Persistence.createEntityManagerFactory(
 *     "orders", Map.of(OutboxSettings.OPTIONS, options));
 * }</pre>
 */
public final class OutboxSettings {

  /**
   * {@code false} turns the outbox off for this persistence unit: no listener is registered and no
   * table is checked. Default {@code true}.
   */
  public static final String ENABLED = "dev.outbox.enabled";

  /**
   * An {@link dev.outbox.OutboxOptions} instance (not a string). Default {@link
   * dev.outbox.OutboxOptions#defaults()}.
   */
  public static final String OPTIONS = "dev.outbox.options";

  /**
   * {@code true} or {@code false}: overrides {@link dev.outbox.OutboxOptions#createSchema()}, for
   * {@code persistence.xml} users who cannot pass an object.
   */
  public static final String CREATE_SCHEMA = "dev.outbox.create_schema";

  /**
   * {@code false} stops the outbox from storing the W3C trace context ({@code traceparent}, {@code
   * tracestate}) of the active OpenTelemetry span in each row's headers, and from opening a publish
   * span per message. Default {@code true}; has no effect without the OpenTelemetry API on the
   * classpath.
   */
  public static final String TRACE_CONTEXT = "dev.outbox.trace_context";

  /**
   * The {@code io.opentelemetry.api.OpenTelemetry} whose tracer opens the publish spans (an object,
   * not a text). Default: {@code GlobalOpenTelemetry}, read when the first batch is published, so
   * that an SDK registered at start-up (or the Java agent's) is the one used.
   */
  public static final String OPEN_TELEMETRY = "dev.outbox.open_telemetry";

  /** A table name: overrides {@link dev.outbox.OutboxOptions#outboxTable()}. */
  public static final String OUTBOX_TABLE = "dev.outbox.outbox_table";

  /** A table name: overrides {@link dev.outbox.OutboxOptions#deadLetterTable()}. */
  public static final String DEAD_LETTER_TABLE = "dev.outbox.dead_letter_table";

  private OutboxSettings() {}
}
