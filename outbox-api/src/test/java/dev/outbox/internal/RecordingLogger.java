package dev.outbox.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger that keeps every line it is given, at every level, for the test to read; the
 * project's test binding (slf4j-simple at warn) is left alone.
 */
final class RecordingLogger extends LegacyAbstractLogger {

  private static final long serialVersionUID = 1L;

  /**
   * One logged line.
   *
   * @param level its level
   * @param message the message with its arguments filled in
   * @param error the throwable logged with it, or {@code null}
   */
  record Line(Level level, String message, Throwable error) {}

  private final transient List<Line> lines = new CopyOnWriteArrayList<>();

  RecordingLogger() {
    this.name = "recording";
  }

  /** Every line so far, in order. */
  List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The lines of one level so far, in order. */
  List<Line> at(Level level) {
    return lines.stream().filter(line -> line.level() == level).toList();
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] arguments, Throwable error) {
    String message = MessageFormatter.basicArrayFormat(pattern, arguments);
    lines.add(new Line(level, message, error));
  }

  @Override
  public boolean isTraceEnabled() {
    return true;
  }

  @Override
  public boolean isDebugEnabled() {
    return true;
  }

  @Override
  public boolean isInfoEnabled() {
    return true;
  }

  @Override
  public boolean isWarnEnabled() {
    return true;
  }

  @Override
  public boolean isErrorEnabled() {
    return true;
  }
}
