package dev.outbox.hibernate.e2e;

import dev.outbox.testing.StandardErrorCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what the tests' SLF4J binding (slf4j-simple, writing to {@code System.err}) logs while it
 * is open ({@link StandardErrorCapture}) back as records: a line {@code [thread] LEVEL logger -
 * message} (after the time when {@code showDateTime} is on) and the stack trace lines printed under
 * it.
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

  private final StandardErrorCapture standardError = new StandardErrorCapture();

  /**
   * The records so far whose logger's name starts with {@code prefix}.
   *
   * @param prefix for example {@code dev.outbox.}
   * @return the records, in the order they were written
   */
  List<Record> records(String prefix) {
    List<Record> records = new ArrayList<>();
    String level = null;
    String logger = null;
    String message = null;
    int stack = 0;
    for (String line : standardError.lines()) {
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
    standardError.close();
  }
}
