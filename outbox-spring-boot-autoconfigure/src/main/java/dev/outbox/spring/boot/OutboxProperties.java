package dev.outbox.spring.boot;

import dev.outbox.OutboxOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The {@code outbox.*} properties of the environment, as text, for the outbox's own binder (the one
 * {@code OutboxOptions.fromMap} and every adapter's {@code fromMap} use): the same keys, values and
 * error messages as outside Spring. Keys come in kebab-case ({@code outbox.poll-interval}) from any
 * property source, or in environment form ({@code OUTBOX_POLL_INTERVAL}). Unknown keys are caught
 * first, in {@link #checkKeys()}, with every key the integration accepts and the one the typo
 * probably meant.
 */
final class OutboxProperties {

  /**
   * Keys of the Spring Boot integration itself, not of {@code OutboxOptions}, below {@code
   * outbox.}.
   */
  static final List<String> OWN_KEYS =
      List.of(
          "enabled",
          "broker",
          "health.max-lag",
          "metrics.latency-histogram",
          "flyway.enabled",
          "inbox.*");

  /** The first segments of {@link #OWN_KEYS}: what the outbox's binders never see. */
  static final Set<String> SPRING_ONLY =
      Set.of("enabled", "broker", "health", "metrics", "flyway", "inbox");

  private final Map<String, String> values;

  private OutboxProperties(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Reads every {@code outbox.*} and {@code OUTBOX_*} property, resolving placeholders. A key given
   * in both forms ({@code outbox.batch-size} in {@code application.yml}, {@code OUTBOX_BATCH_SIZE}
   * in the environment) is read once, from the source Spring ranks first, as Spring's own binding
   * would.
   */
  static OutboxProperties of(ConfigurableEnvironment environment) {
    Map<String, String> values = new TreeMap<>();
    Set<String> seen = new HashSet<>();
    for (PropertySource<?> source : environment.getPropertySources()) {
      if (!(source instanceof EnumerablePropertySource<?> enumerable)) {
        continue;
      }
      for (String name : enumerable.getPropertyNames()) {
        boolean ours = name.startsWith("outbox.") || name.startsWith("OUTBOX_");
        if (ours && seen.add(normalized(name))) {
          Object value = source.getProperty(name);
          if (value != null) {
            values.put(name, environment.resolvePlaceholders(String.valueOf(value)));
          }
        }
      }
    }
    return new OutboxProperties(values);
  }

  /** The key as the environment form writes it: {@code outbox.batch-size} is OUTBOX_BATCH_SIZE. */
  private static String normalized(String key) {
    return KeySuggestions.normalized(key);
  }

  /**
   * The properties the outbox's binders read: every one but the integration's own.
   *
   * @return key to value
   */
  Map<String, String> forBinders() {
    Map<String, String> bound = new TreeMap<>();
    values.forEach(
        (key, value) -> {
          if (!SPRING_ONLY.contains(firstSegment(key))) {
            bound.put(key, value);
          }
        });
    return bound;
  }

  /**
   * Checks every key outside the adapters' sections ({@code outbox.kafka.*} ...; each adapter
   * checks its own): it must be one of the outbox's options or of the integration's own keys.
   *
   * @throws OutboxConfigurationException naming an unknown key, the known key it was probably meant
   *     as, and every key the integration accepts
   */
  void checkKeys() {
    List<String> known = knownKeys();
    for (String key : values.keySet()) {
      String normal = normalized(key);
      if (isAdapterKey(normal) || isKnown(normal, known)) {
        continue;
      }
      List<String> meant = meant(key, known);
      throw new OutboxConfigurationException(
          "Unknown outbox property "
              + key
              + (meant.isEmpty() ? "." : "; did you mean " + String.join(" or ", meant) + "?"),
          "Use one of the keys the outbox accepts, in kebab-case: "
              + String.join(", ", OutboxOptions.keys("outbox"))
              + " (the outbox's options); outbox."
              + String.join(", outbox.", OWN_KEYS)
              + " (the Spring Boot integration's); and each adapter's keys below "
              + Arrays.stream(Broker.values())
                  .map(broker -> broker.prefix() + ".*")
                  .collect(Collectors.joining(", "))
              + " (listed in its README). Each key also works in environment form"
              + " (OUTBOX_POLL_INTERVAL for outbox.poll-interval).",
          null);
    }
  }

  /** The outbox's options and the integration's own keys, dotted; sections end in {@code .*}. */
  private static List<String> knownKeys() {
    List<String> known = new ArrayList<>(OutboxOptions.keys("outbox"));
    OWN_KEYS.forEach(own -> known.add("outbox." + own));
    return known;
  }

  private static boolean isAdapterKey(String normal) {
    return Arrays.stream(Broker.values())
        .anyMatch(broker -> normal.startsWith(normalized(broker.prefix()) + '_'));
  }

  private static boolean isKnown(String normal, List<String> known) {
    for (String key : known) {
      boolean matches =
          key.endsWith(".*")
              ? normal.startsWith(normalized(key.substring(0, key.length() - 1)))
              : normal.equals(normalized(key));
      if (matches) {
        return true;
      }
    }
    return false;
  }

  /**
   * The keys an unknown one was probably meant as: a known key close to it, or its rest below the
   * adapter section its first segment misspells ({@code outbox.kafak.client-id}).
   */
  private static List<String> meant(String key, List<String> known) {
    List<String> close = KeySuggestions.closeTo(key, known);
    if (!close.isEmpty()) {
      return close;
    }
    boolean dottedForm = key.startsWith("outbox.");
    String rest = key.substring(7);
    int end = dottedForm ? rest.indexOf('.') : rest.indexOf('_');
    if (end <= 0) {
      return List.of();
    }
    String section = normalized(rest.substring(0, end));
    for (Broker broker : Broker.values()) {
      String adapter = broker.prefix().substring(7);
      if (KeySuggestions.distance(section, normalized(adapter))
              <= KeySuggestions.allowedEdits(adapter)
          || section.equals(normalized(broker.id()))) {
        return List.of(
            dottedForm
                ? broker.prefix() + rest.substring(end)
                : normalized(broker.prefix()) + rest.substring(end));
      }
    }
    return List.of();
  }

  /**
   * Every property read, dotted or in environment form as given, for a binder of its own section
   * ({@code InboxOptions.fromMap(values, "outbox.inbox")}).
   *
   * @return key to value
   */
  Map<String, String> all() {
    return Map.copyOf(values);
  }

  /** The value of {@code outbox.<name>} (or its environment form), or {@code null}. */
  String get(String name) {
    String dotted = values.get("outbox." + name);
    return dotted != null ? dotted : values.get(environmentForm(name));
  }

  private static String environmentForm(String name) {
    return normalized("outbox." + name);
  }

  private static String firstSegment(String key) {
    String rest =
        key.startsWith("outbox.") ? key.substring(7) : key.substring(7).toLowerCase(Locale.ROOT);
    for (String own : SPRING_ONLY) {
      String normal = rest.replace('_', '-');
      if (normal.equals(own) || normal.startsWith(own + ".") || normal.startsWith(own + "-")) {
        return own;
      }
    }
    int dot = rest.indexOf('.');
    return dot < 0 ? rest : rest.substring(0, dot);
  }
}
