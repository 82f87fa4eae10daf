/**
 * The Hibernate persistence adapter: public entry points.
 *
 * <p>Putting {@code outbox-hibernate} on the classpath is enough: its Hibernate {@code Integrator}
 * registers the flush listener under a plain JPA bootstrap and under Hibernate's native bootstrap.
 * {@link dev.outbox.hibernate.OutboxSettings} lists the settings that pass {@link
 * dev.outbox.OutboxOptions} to it; {@link dev.outbox.jdbc.JacksonEventSerializer} is the default
 * serializer.
 */
package dev.outbox.hibernate;
