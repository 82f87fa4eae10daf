package dev.outbox.benchmarks.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The measured figures in the order they were measured: the Markdown table (name | value | unit |
 * target | what bounds it) and the JSON object {@code {"name": value, ...}}.
 */
public final class Figures {

  /** One row of the table. */
  private record Figure(double value, String unit, String target, String bound) {}

  private final Map<String, Figure> figures = new LinkedHashMap<>();

  /**
   * Adds a figure, printing it at once so that a long run shows progress.
   *
   * @param name the JSON key
   * @param value the value
   * @param unit its unit
   * @param target the target, or "" when none
   * @param bound what bounds it
   */
  public synchronized void add(
      String name, double value, String unit, String target, String bound) {
    figures.put(name, new Figure(value, unit, target, bound));
    System.out.printf(Locale.ROOT, "  -> %s = %s %s%n", name, format(value), unit);
  }

  /**
   * A figure's value.
   *
   * @param name the key
   * @return the value, NaN when absent
   */
  public synchronized double get(String name) {
    Figure figure = figures.get(name);
    return figure == null ? Double.NaN : figure.value();
  }

  /**
   * The Markdown table.
   *
   * @return the table with a header row
   */
  public synchronized String markdown() {
    StringBuilder table = new StringBuilder();
    table.append("| name | value | unit | target | what bounds it |\n");
    table.append("|---|---:|---|---|---|\n");
    figures.forEach(
        (name, f) ->
            table.append(
                String.format(
                    Locale.ROOT,
                    "| `%s` | %s | %s | %s | %s |%n",
                    name,
                    format(f.value()),
                    f.unit(),
                    f.target(),
                    f.bound())));
    return table.toString();
  }

  /**
   * Writes the JSON object.
   *
   * @param file where
   */
  public synchronized void writeJson(Path file) {
    StringJoiner json = new StringJoiner(",\n  ", "{\n  ", "\n}\n");
    figures.forEach((name, f) -> json.add('"' + name + "\": " + jsonNumber(f.value())));
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, json.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String jsonNumber(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "null";
    }
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : String.format(Locale.ROOT, "%.4f", value);
  }

  private static String format(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    if (value == Math.rint(value) && Math.abs(value) >= 100) {
      return String.format(Locale.ROOT, "%,d", (long) value);
    }
    return Math.abs(value) >= 100
        ? String.format(Locale.ROOT, "%,.0f", value)
        : String.format(Locale.ROOT, "%.3f", value);
  }
}
