package dev.outbox.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a command may touch outside its arguments: the environment (for {@code --password-env}), the
 * two output streams, the clock, and whether the output is a terminal (for {@code --watch}).
 *
 * @param env the environment variables
 * @param out where results go
 * @param err where errors go
 * @param clock the clock for lags and relative times
 * @param terminal whether {@code out} is a terminal, so a watch may clear the screen
 * @param secrets the passwords read so far, masked in every error printed
 */
record Context(
    Map<String, String> env,
    PrintWriter out,
    PrintWriter err,
    Clock clock,
    boolean terminal,
    Set<String> secrets) {

  /** A context that has read no secret yet. */
  Context(
      Map<String, String> env, PrintWriter out, PrintWriter err, Clock clock, boolean terminal) {
    this(env, out, err, clock, terminal, ConcurrentHashMap.newKeySet());
  }

  /** The text with every secret read so far replaced by {@code ****}. */
  String mask(String text) {
    String masked = text;
    for (String secret : secrets) {
      if (!secret.isEmpty()) {
        masked = masked.replace(secret, "****");
      }
    }
    return masked;
  }
}
