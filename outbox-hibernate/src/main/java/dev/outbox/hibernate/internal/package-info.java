/**
 * Implementation of the Hibernate adapter. Not API: anything here may change without notice.
 *
 * <p>{@link dev.outbox.hibernate.internal.OutboxIntegrator} is listed in {@code META-INF/services}
 * and wires the flush listeners; the rest is the harvest, the row writer and the schema check.
 */
package dev.outbox.hibernate.internal;
