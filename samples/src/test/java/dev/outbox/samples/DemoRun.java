package dev.outbox.samples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The demo run in this JVM, with what it printed. */
record DemoRun(int exitCode, String out, List<String> errLines) {

  /** The local PostgreSQL of the integration tests. */
  static final String LOCAL_POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  static DemoRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = OrdersDemo.run(args, outStream, errStream);
    }
    String errText = err.toString(StandardCharsets.UTF_8);
    System.out.print(out.toString(StandardCharsets.UTF_8)); // the demo's output in the build log
    return new DemoRun(code, out.toString(StandardCharsets.UTF_8), errText.lines().toList());
  }

  String summaryLine() {
    return out.lines().filter(line -> line.startsWith("summary: ")).findFirst().orElse("");
  }
}
