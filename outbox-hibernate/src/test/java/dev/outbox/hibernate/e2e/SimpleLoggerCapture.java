package dev.outbox.hibernate.e2e;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Copies what the tests' SLF4J binding (slf4j-simple, writing to {@code System.err}) logs while it
 * is open, still letting it through, and reads it back as records: a line {@code [thread] LEVEL
 * logger - message} (after the time when {@code showDateTime} is on) and the stack trace lines
 * printed under it.
 */
final class SimpleLoggerCapture implements AutoCloseable {

  private static final Pattern HEADER =
      Pattern.compile("^(?:\\S+ )?\\[[^\\]]*\\] (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - (.*)$");

  /**
   * One logged record.
   *
   * @param level its level
   * @param logger the logger's name
   * @param message its message line
   * @param stackTraceLines how many {@code at ...} lines were printed under it
   */
  record Record(String level, String logger, String message, int stackTraceLines) {

    @Override
    public String toString() {
      return level + " " + logger + " - " + message + (stackTraceLines > 0 ? " [+stack]" : "");
    }
  }

  private final PrintStream original = System.err;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  SimpleLoggerCapture() {
    OutputStream both =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (copy) {
              copy.write(b);
            }
            original.write(b);
          }

          @Override
          public void write(byte[] bytes, int offset, int length) {
            synchronized (copy) {
              copy.write(bytes, offset, length);
            }
            original.write(bytes, offset, length);
          }
        };
    System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
  }

  /**
   * The records so far whose logger's name starts with {@code prefix}.
   *
   * @param prefix for example {@code dev.outbox.}
   * @return the records, in the order they were written
   */
  List<Record> records(String prefix) {
    String written;
    synchronized (copy) {
      written = copy.toString(StandardCharsets.UTF_8);
    }
    List<Record> records = new ArrayList<>();
    String level = null;
    String logger = null;
    String message = null;
    int stack = 0;
    for (String line : written.split("\\R")) {
      Matcher header = HEADER.matcher(line);
      if (header.matches()) {
        if (logger != null && logger.startsWith(prefix)) {
          records.add(new Record(level, logger, message, stack));
        }
        level = header.group(1);
        logger = header.group(2);
        message = header.group(3);
        stack = 0;
      } else if (line.startsWith("\tat ")) {
        stack++;
      }
    }
    if (logger != null && logger.startsWith(prefix)) {
      records.add(new Record(level, logger, message, stack));
    }
    return records;
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
