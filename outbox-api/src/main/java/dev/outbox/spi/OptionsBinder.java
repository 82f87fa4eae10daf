package dev.outbox.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binds an options builder from string settings under a prefix: the one grammar of {@code
 * OutboxOptions} and of every adapter's options.
 *
 * <p><b>Keys.</b> Each option has a kebab-case name; under the prefix {@code outbox.kafka} the key
 * {@code outbox.kafka.bootstrap-servers} and its environment form {@code
 * OUTBOX_KAFKA_BOOTSTRAP_SERVERS} both set it (a key matches when both read the same in upper case
 * with {@code .} and {@code -} as {@code _}). The prefix may be given in either form, with or
 * without its trailing separator. Keys outside the prefix are ignored; a key under the prefix that
 * names no option is an error that lists the known keys, and so is one option given twice. Options
 * are set in the order they were declared, whatever the order of the keys.
 *
 * <p><b>Values.</b> Durations as {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d} or
 * ISO-8601 ({@code PT5S}); integers and decimals; comma-separated lists; booleans {@code
 * true}/{@code false}; enum constants in any case with {@code -} or {@code _}. A <i>section</i>
 * passes every key below it to a map ({@code outbox.kafka.producer.linger.ms}, or {@code
 * OUTBOX_KAFKA_PRODUCER_LINGER_MS}, whose rest is read as {@code linger.ms}). A bad value is an
 * error that names the key; the value of a secret never appears in one.
 *
 * <pre>{@code
 * static final OptionsBinder<Builder> BINDER =
 *     OptionsBinder.<Builder>of("Kafka publisher")
 *         .string("bootstrap-servers", Builder::bootstrapServers)
 *         .duration("close-timeout", Builder::closeTimeout)
 *         .section("producer", Builder::producerProperties);
 * BINDER.bind(System.getenv(), "OUTBOX_KAFKA", builder);
 * }</pre>
 *
 * <p>Immutable once declared and thread-safe; a binder's declarations happen once, in a static
 * initialiser.
 *
 * @param <B> the builder it sets
 */
public final class OptionsBinder<B> {

  private static final Pattern DURATION =
      Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

  /**
   * One declared option: a value's setter or a section's, the other {@code null}; an ignored
   * section has neither.
   */
  private record Option<B>(
      String name,
      Kind kind,
      BiConsumer<B, String> setter,
      BiConsumer<B, Map<String, String>> sectionSetter) {

    /** Whether it owns the keys below its name rather than its name itself. */
    boolean below() {
      return kind == Kind.SECTION || kind == Kind.IGNORED;
    }
  }

  private enum Kind {
    VALUE,
    SECRET,
    SECTION,
    IGNORED
  }

  private final String subject;
  private final Map<String, Option<B>> options = new LinkedHashMap<>();

  private OptionsBinder(String subject) {
    this.subject = subject;
  }

  /**
   * A binder with no options yet.
   *
   * @param subject what the options configure, for error messages ({@code "Kafka publisher"})
   * @param <B> the builder it sets
   * @return the binder
   */
  public static <B> OptionsBinder<B> of(String subject) {
    return new OptionsBinder<>(Objects.requireNonNull(subject, "subject must not be null"));
  }

  /**
   * A text option.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder (which checks it)
   * @return this binder
   */
  public OptionsBinder<B> string(String name, BiConsumer<B, String> setter) {
    return add(name, Kind.VALUE, setter);
  }

  /**
   * A text option whose value never appears in a message: a password, a connection string.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> secret(String name, BiConsumer<B, String> setter) {
    return add(name, Kind.SECRET, setter);
  }

  /**
   * A duration option: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d} or ISO-8601.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> duration(String name, BiConsumer<B, Duration> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, duration(value)));
  }

  /**
   * An integer option.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> integer(String name, BiConsumer<B, Integer> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, integer(value)));
  }

  /**
   * A list option: comma-separated, each item trimmed, empty items left out.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> list(String name, BiConsumer<B, List<String>> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, list(value)));
  }

  /**
   * A decimal option, such as {@code 2.0} or {@code 0.2}.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> decimal(String name, BiConsumer<B, Double> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, decimal(value)));
  }

  /**
   * A boolean option: {@code true} or {@code false}, in any case.
   *
   * @param name its kebab-case name
   * @param setter sets it on the builder
   * @return this binder
   */
  public OptionsBinder<B> bool(String name, BiConsumer<B, Boolean> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, bool(value)));
  }

  /**
   * An enum option: a constant's name in any case, with {@code -} or {@code _}.
   *
   * @param name its kebab-case name
   * @param type the enum
   * @param setter sets it on the builder
   * @param <E> the enum
   * @return this binder
   */
  public <E extends Enum<E>> OptionsBinder<B> enumeration(
      String name, Class<E> type, BiConsumer<B, E> setter) {
    return add(name, Kind.VALUE, (builder, value) -> setter.accept(builder, constant(type, value)));
  }

  /**
   * A section: every key below {@code name} goes into one map, by the rest of its key (dotted as
   * given, or the environment form in lower case with {@code _} read as {@code .}).
   *
   * @param name the section's kebab-case name
   * @param setter sets the map on the builder, once, when the section has keys
   * @return this binder
   */
  public OptionsBinder<B> section(String name, BiConsumer<B, Map<String, String>> setter) {
    Objects.requireNonNull(setter, "setter must not be null");
    return add(name, Kind.SECTION, null, setter);
  }

  /**
   * Keys below {@code name} that other options own (an adapter's section below {@code outbox}):
   * neither bound nor unknown.
   *
   * @param name the section's kebab-case name
   * @return this binder
   */
  public OptionsBinder<B> ignoring(String name) {
    return add(name, Kind.IGNORED, null, null);
  }

  private OptionsBinder<B> add(String name, Kind kind, BiConsumer<B, String> setter) {
    Objects.requireNonNull(setter, "setter must not be null");
    return add(name, kind, setter, null);
  }

  private OptionsBinder<B> add(
      String name,
      Kind kind,
      BiConsumer<B, String> setter,
      BiConsumer<B, Map<String, String>> sectionSetter) {
    if (options.putIfAbsent(checkName(name), new Option<>(name, kind, setter, sectionSetter))
        != null) {
      throw new IllegalArgumentException(subject + " option " + name + " is declared twice");
    }
    return this;
  }

  private static String checkName(String name) {
    if (name == null || !name.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException("an option name is kebab-case, but was " + name);
    }
    return name;
  }

  /**
   * The keys this binder reads under a prefix, in declaration order: sections end in {@code .*};
   * ignored sections are left out.
   *
   * @param prefix the prefix in dotted form, for example {@code outbox.kafka}
   * @return the keys, for example {@code outbox.kafka.bootstrap-servers}
   */
  public List<String> keys(String prefix) {
    String dotted = prefix.isEmpty() || prefix.endsWith(".") ? prefix : prefix + '.';
    List<String> keys = new ArrayList<>();
    options
        .values()
        .forEach(
            option -> {
              switch (option.kind()) {
                case SECTION -> keys.add(dotted + option.name() + ".*");
                case IGNORED -> {}
                default -> keys.add(dotted + option.name());
              }
            });
    return keys;
  }

  /**
   * Sets every option the properties hold under the prefix.
   *
   * @param properties the properties, for example a file's
   * @param prefix the prefix, dotted or in environment form; may be empty
   * @param builder the builder to set
   * @return the builder
   * @throws IllegalArgumentException naming the key of an unknown option, an option given twice, or
   *     a bad value
   */
  public B bind(Properties properties, String prefix, B builder) {
    Objects.requireNonNull(properties, "properties must not be null");
    Map<String, String> values = new HashMap<>();
    properties
        .stringPropertyNames()
        .forEach(name -> values.put(name, properties.getProperty(name)));
    return bind(values, prefix, builder);
  }

  /**
   * Sets every option the map holds under the prefix.
   *
   * @param values the settings, for example {@code System.getenv()}
   * @param prefix the prefix, dotted or in environment form; may be empty
   * @param builder the builder to set
   * @return the builder
   * @throws IllegalArgumentException naming the key of an unknown option, an option given twice, or
   *     a bad value
   */
  public B bind(Map<String, String> values, String prefix, B builder) {
    Objects.requireNonNull(values, "values must not be null");
    Objects.requireNonNull(builder, "builder must not be null");
    String common = normalized(prefix == null ? "" : prefix);
    if (!common.isEmpty() && !common.endsWith("_")) {
      common += '_';
    }
    Map<String, String> givenAs = new TreeMap<>();
    Map<String, String> given = new TreeMap<>();
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : new TreeMap<>(values).entrySet()) {
      String key = entry.getKey();
      String normal = normalized(key);
      if (!normal.startsWith(common) || entry.getValue() == null) {
        continue;
      }
      String rest = normal.substring(common.length());
      Option<B> option = find(rest);
      if (option == null) {
        throw new IllegalArgumentException(unknown(key, prefix));
      }
      switch (option.kind()) {
        case IGNORED -> {}
        case SECTION -> {
          String below = key.substring(common.length() + option.name().length() + 1);
          sections
              .computeIfAbsent(option.name(), name -> new TreeMap<>())
              .put(sectionKey(below), entry.getValue());
        }
        default -> {
          String earlier = givenAs.putIfAbsent(option.name(), key);
          if (earlier != null) {
            throw new IllegalArgumentException(
                subject + " option " + option.name() + " is given twice: " + earlier + ", " + key);
          }
          given.put(option.name(), entry.getValue().trim());
        }
      }
    }
    // In declaration order, whatever the order of the keys: a later option may refine an earlier.
    for (Option<B> option : options.values()) {
      if (given.containsKey(option.name())) {
        set(option, builder, givenAs.get(option.name()), given.get(option.name()));
      } else if (sections.containsKey(option.name())) {
        try {
          option.sectionSetter().accept(builder, sections.get(option.name()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(option.name() + ".*: " + e.getMessage(), e);
        }
      }
    }
    return builder;
  }

  private Option<B> find(String rest) {
    for (Option<B> option : options.values()) {
      if (!option.below() && rest.equals(normalized(option.name()))) {
        return option;
      }
    }
    for (Option<B> option : options.values()) {
      if (option.below() && rest.startsWith(normalized(option.name()) + '_')) {
        return option;
      }
    }
    return null;
  }

  private void set(Option<B> option, B builder, String key, String value) {
    try {
      option.setter().accept(builder, value);
    } catch (IllegalArgumentException e) {
      if (option.kind() != Kind.SECRET) {
        throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
      }
      String reason = String.valueOf(e.getMessage());
      if (!value.isEmpty()) {
        reason = reason.replace(value, "****");
      }
      throw new IllegalArgumentException(key + ": " + reason + " (the value is a secret)");
    }
  }

  private String unknown(String key, String prefix) {
    List<String> known = keys(dotted(prefix == null ? "" : prefix));
    return "Unknown "
        + subject
        + " option "
        + key
        + "; the known keys are "
        + String.join(", ", known)
        + (known.isEmpty()
            ? ""
            : ", each also in environment form (" + normalized(known.get(0)) + ", ...)");
  }

  /** A prefix in environment form read as dotted: {@code OUTBOX_KAFKA_} as {@code outbox.kafka}. */
  private static String dotted(String prefix) {
    if (!prefix.equals(prefix.toUpperCase(Locale.ROOT))) {
      return prefix;
    }
    String lower = prefix.toLowerCase(Locale.ROOT).replace('_', '.');
    return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
  }

  private static String sectionKey(String below) {
    boolean environment = below.equals(below.toUpperCase(Locale.ROOT)) && below.indexOf('.') < 0;
    return environment ? below.toLowerCase(Locale.ROOT).replace('_', '.') : below;
  }

  private static String normalized(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * Reads a duration: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d}, or ISO-8601
   * such as {@code PT5S}.
   *
   * @param value the text
   * @return the duration
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static Duration duration(String value) {
    String text = value.trim();
    Matcher matcher = DURATION.matcher(text);
    try {
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
      return Duration.parse(text);
    } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "expected a duration such as 500ms, 5s, 2m, 1h, 1d or PT5S, but was \"" + value + '"', e);
    }
  }

  private static int integer(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected an integer, but was \"" + value + '"', e);
    }
  }

  private static List<String> list(String value) {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return List.copyOf(items);
  }

  private static double decimal(String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a number, but was \"" + value + '"', e);
    }
  }

  private static boolean bool(String value) {
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException("expected true or false, but was \"" + value + '"');
  }

  private static <E extends Enum<E>> E constant(Class<E> type, String value) {
    String name = normalized(value);
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(name)) {
        return constant;
      }
    }
    List<String> known = new ArrayList<>();
    for (E constant : type.getEnumConstants()) {
      known.add(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    throw new IllegalArgumentException(
        "expected one of " + String.join(", ", known) + ", but was \"" + value + '"');
  }

  @Override
  public String toString() {
    return "OptionsBinder[" + subject + ": " + String.join(", ", options.keySet()) + ']';
  }
}
