/**
 * A payments application on plain JDBC, with no ORM: {@link
 * dev.outbox.samples.payments.PaymentService} changes its tables and sends events with {@code
 * JdbcOutbox} in the same transactions; {@link dev.outbox.samples.payments.PaymentsDemo} wires it
 * with Guice ({@code JdbcOutboxModule} + {@code RabbitMqOutboxModule}), runs a workload and checks
 * what arrives at RabbitMQ. Not a library: not deployed.
 */
package dev.outbox.samples.payments;
