package dev.outbox.rabbitmq.internal;

import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Reads {@link RabbitMqPublisherOptions} from string keys under a prefix, as {@code
 * <prefix>.<name>} or {@code <PREFIX>_<NAME>}. Values of secret keys never appear in its errors.
 */
public final class OptionsReader {

  private static final Set<String> SECRETS = Set.of("password", "uri");

  private final Map<String, String> values;
  private final String prefix;
  private final Map<String, BiConsumer<RabbitMqPublisherOptions.Builder, String>> setters =
      new LinkedHashMap<>();

  /**
   * A reader of these values.
   *
   * @param values the keys and values
   * @param prefix the prefix of the keys, without the separator; empty or {@code null} for none
   */
  public OptionsReader(Map<String, String> values, String prefix) {
    this.values = Map.copyOf(values);
    this.prefix = prefix == null ? "" : prefix;
    // uri first, so that the single settings given with it override its parts
    setters.put("uri", (b, v) -> b.uri(v));
    setters.put("host", (b, v) -> b.host(v));
    setters.put("port", (b, v) -> b.port(integer(v)));
    setters.put("virtualHost", (b, v) -> b.virtualHost(v));
    setters.put("username", (b, v) -> b.username(v));
    setters.put("password", (b, v) -> b.password(v));
    setters.put("tls", (b, v) -> b.tls(bool(v)));
    setters.put("exchange", (b, v) -> b.exchange(v));
    setters.put("exchangeType", (b, v) -> b.exchangeType(v));
    setters.put("exchangeDurable", (b, v) -> b.exchangeDurable(bool(v)));
    setters.put("declareExchange", (b, v) -> b.declareExchange(bool(v)));
    setters.put("routingKey", (b, v) -> b.routingKeyTemplate(v));
    setters.put("appId", (b, v) -> b.appId(v.isBlank() ? null : v));
    setters.put("connectionName", (b, v) -> b.connectionName(v));
    setters.put("connectionTimeout", (b, v) -> b.connectionTimeout(duration(v)));
    setters.put("heartbeat", (b, v) -> b.heartbeat(duration(v)));
    setters.put("recoveryInterval", (b, v) -> b.recoveryInterval(duration(v)));
  }

  /**
   * The string entries of properties.
   *
   * @param properties the properties, defaults included
   * @return a new map
   */
  public static Map<String, String> toMap(Properties properties) {
    Map<String, String> map = new HashMap<>();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name));
    }
    return map;
  }

  /**
   * Sets every option that has a value.
   *
   * @param builder the builder to set
   * @throws IllegalArgumentException naming the key, for a bad value or a key no option has
   */
  public void applyTo(RabbitMqPublisherOptions.Builder builder) {
    rejectUnknownKeys();
    setters.forEach(
        (name, setter) -> {
          String key = dotted(name);
          String value = values.get(key);
          if (value == null) {
            key = environment(name);
            value = values.get(key);
          }
          if (value != null) {
            apply(builder, name, key, value.trim(), setter);
          }
        });
  }

  private void apply(
      RabbitMqPublisherOptions.Builder builder,
      String name,
      String key,
      String value,
      BiConsumer<RabbitMqPublisherOptions.Builder, String> setter) {
    try {
      setter.accept(builder, value);
    } catch (IllegalArgumentException e) {
      if (!SECRETS.contains(name)) {
        throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
      }
      String reason = e.getMessage();
      if (!value.isEmpty()) {
        reason = reason.replace(value, AmqpUri.mask(value));
      }
      throw new IllegalArgumentException(key + ": " + reason);
    }
  }

  private void rejectUnknownKeys() {
    if (prefix.isEmpty()) {
      return;
    }
    Set<String> known = new HashSet<>();
    setters.keySet().forEach(name -> known.add(dotted(name)));
    setters.keySet().forEach(name -> known.add(environment(name)));
    String envPrefix = environment("");
    for (String key : values.keySet()) {
      boolean ours = key.startsWith(prefix + ".") || key.startsWith(envPrefix);
      if (ours && !known.contains(key)) {
        throw new IllegalArgumentException(
            key
                + " is not an option of RabbitMqPublisherOptions; the options are "
                + setters.keySet());
      }
    }
  }

  private String dotted(String name) {
    return prefix.isEmpty() ? name : prefix + "." + name;
  }

  private String environment(String name) {
    String snake = name.replaceAll("([a-z])([A-Z])", "$1_$2");
    String full = prefix.isEmpty() ? snake : prefix + "_" + snake;
    return full.replace('.', '_').replace('-', '_').toUpperCase(Locale.ROOT);
  }

  private static int integer(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be an integer, but was " + value);
    }
  }

  private static boolean bool(String value) {
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException("must be true or false, but was " + value);
  }

  /**
   * Parses ISO-8601 ({@code PT5S}) or a number with {@code ms}, {@code s} or {@code m}.
   *
   * @param value the text
   * @return the duration
   */
  static Duration duration(String value) {
    String text = value.toLowerCase(Locale.ROOT);
    try {
      if (text.startsWith("p")) {
        return Duration.parse(value);
      }
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2).trim()));
      }
      if (text.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1).trim()));
      }
      if (text.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1).trim()));
      }
    } catch (NumberFormatException | DateTimeParseException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "must be a duration such as PT5S, 500ms, 5s or 2m, but was " + value);
  }
}
