package dev.outbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One run of the tool in this JVM, as a user's shell would see it: the exit code and the two
 * outputs.
 *
 * @param exitCode the exit code
 * @param out what went to standard output
 * @param err what went to standard error
 */
record CliRun(int exitCode, String out, String err) {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Runs {@code outbox} with the arguments, with no environment variable set. */
  static CliRun of(String... args) {
    return withEnv(Map.of(), args);
  }

  /** Runs {@code outbox} with the arguments and the environment. */
  static CliRun withEnv(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Context context =
        new Context(env, new PrintWriter(out), new PrintWriter(err), Clock.systemUTC(), false);
    int code = OutboxCli.run(context, args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /** The arguments, then more. */
  static String[] args(String[] first, String... more) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  /** Standard output read as one JSON document. */
  JsonNode json() {
    try {
      return MAPPER.readTree(out);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + out + err, e);
    }
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
