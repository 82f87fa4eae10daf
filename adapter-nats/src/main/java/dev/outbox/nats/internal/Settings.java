package dev.outbox.nats.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads option values from string settings under a prefix ({@code outbox.nats.servers}), and
 * rejects unknown keys under that prefix so that a misspelt option fails instead of being ignored.
 */
public final class Settings {

  private static final Pattern SHORT_DURATION =
      Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

  private final String prefix;
  private final Map<String, String> values = new TreeMap<>();
  private final Set<String> read = new TreeSet<>();

  private Settings(String prefix, Map<String, String> all) {
    this.prefix = normalize(prefix);
    all.forEach(
        (key, value) -> {
          if (key.startsWith(this.prefix) && value != null) {
            values.put(key.substring(this.prefix.length()), value.trim());
          }
        });
  }

  /**
   * Settings from a map.
   *
   * @param map keys to values
   * @param prefix the prefix of the keys to read; a dot is added unless it is empty or ends in one
   * @return the settings
   */
  public static Settings of(Map<String, String> map, String prefix) {
    return new Settings(prefix, map);
  }

  /**
   * Settings from properties (string values only).
   *
   * @param properties the properties
   * @param prefix as in {@link #of(Map, String)}
   * @return the settings
   */
  public static Settings of(Properties properties, String prefix) {
    Map<String, String> map = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name));
    }
    return new Settings(prefix, map);
  }

  /**
   * The value of a key, if set and not blank.
   *
   * @param name the key without prefix
   * @return the trimmed value, or {@code null}
   */
  public String get(String name) {
    read.add(name);
    String value = values.get(name);
    return value == null || value.isEmpty() ? null : value;
  }

  /**
   * A comma-separated list.
   *
   * @param name the key without prefix
   * @return the items, trimmed, or {@code null} when unset
   */
  public List<String> list(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    List<String> items = new ArrayList<>();
    Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(items::add);
    return Collections.unmodifiableList(items);
  }

  /**
   * A boolean, {@code true} or {@code false}.
   *
   * @param name the key without prefix
   * @return the value, or {@code null} when unset
   */
  public Boolean bool(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default ->
          throw new IllegalArgumentException(
              key(name) + " must be true or false, but was \"" + value + '"');
    };
  }

  /**
   * An integer.
   *
   * @param name the key without prefix
   * @return the value, or {@code null} when unset
   */
  public Integer integer(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    try {
      return Integer.valueOf(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key(name) + " must be an integer, but was \"" + value + '"', e);
    }
  }

  /**
   * A duration: ISO-8601 ({@code PT2M}) or a number with a unit ({@code 500ms}, {@code 2s}, {@code
   * 2m}, {@code 1h}, {@code 1d}).
   *
   * @param name the key without prefix
   * @return the value, or {@code null} when unset
   */
  public Duration duration(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    Matcher matcher = SHORT_DURATION.matcher(value);
    if (matcher.matches()) {
      long amount = Long.parseLong(matcher.group(1));
      return switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      return Duration.parse(value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          key(name) + " must be a duration like 500ms, 2s, 2m or PT2M, but was \"" + value + '"',
          e);
    }
  }

  /**
   * Fails when a key under the prefix was never read: a misspelt or unsupported option.
   *
   * @throws IllegalArgumentException naming the unknown keys and the known ones
   */
  public void rejectUnknown() {
    Set<String> unknown = new TreeSet<>(values.keySet());
    unknown.removeAll(read);
    if (!unknown.isEmpty()) {
      List<String> keys = unknown.stream().map(this::key).toList();
      throw new IllegalArgumentException(
          "unknown NATS option(s) " + keys + "; known: " + read.stream().map(this::key).toList());
    }
  }

  /**
   * The full key of a name.
   *
   * @param name the key without prefix
   * @return prefix plus name
   */
  public String key(String name) {
    return prefix + name;
  }

  private static String normalize(String prefix) {
    if (prefix == null || prefix.isEmpty() || prefix.endsWith(".")) {
      return prefix == null ? "" : prefix;
    }
    return prefix + '.';
  }
}
