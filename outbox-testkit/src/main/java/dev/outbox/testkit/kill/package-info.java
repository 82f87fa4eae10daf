/**
 * Kill tests: what a test needs to run its workers as separate OS processes, kill them with SIGKILL
 * in the middle of their work and check what survived. {@link dev.outbox.testkit.kill.JvmFleet}
 * starts and kills the child JVMs, {@link dev.outbox.testkit.kill.ChildJvm} is the child's side of
 * it, {@link dev.outbox.testkit.kill.KillSchedule} says when to kill, and {@link
 * dev.outbox.testkit.kill.BoundedWriter} commits a load bounded in count, rate and time. What is
 * written, and how (Hibernate, JDBC), stays in each adapter's test. Public API of the test kit.
 */
package dev.outbox.testkit.kill;
