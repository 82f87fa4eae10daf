/**
 * The benchmarks' entry point, {@link dev.outbox.benchmarks.Benchmarks}. Not a library: nothing
 * here is API.
 */
package dev.outbox.benchmarks;
