/** The benchmarks themselves and their servers' setup. Internal: not API. */
package dev.outbox.benchmarks.internal;
