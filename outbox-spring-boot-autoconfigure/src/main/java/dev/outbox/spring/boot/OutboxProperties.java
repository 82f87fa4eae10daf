package dev.outbox.spring.boot;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The {@code outbox.*} properties of the environment, as text, for the outbox's own binder (the one
 * {@code OutboxOptions.fromMap} and every adapter's {@code fromMap} use): the same keys, values and
 * error messages as outside Spring. Keys come in kebab-case ({@code outbox.poll-interval}) from any
 * property source, or in environment form ({@code OUTBOX_POLL_INTERVAL}).
 */
final class OutboxProperties {

  /**
   * Keys of the Spring Boot integration itself, not of {@code OutboxOptions}, below {@code
   * outbox.}.
   */
  static final List<String> OWN_KEYS =
      List.of("enabled", "broker", "health.max-lag", "metrics.latency-histogram", "flyway.enabled");

  /** The first segments of {@link #OWN_KEYS}: what the outbox's binders never see. */
  static final Set<String> SPRING_ONLY = Set.of("enabled", "broker", "health", "metrics", "flyway");

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
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
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
   * Checks the integration's own keys, which the outbox's binders do not see.
   *
   * @throws OutboxConfigurationException naming an unknown one and the known ones
   */
  void checkOwnKeys() {
    for (String key : values.keySet()) {
      String own = firstSegment(key);
      if (SPRING_ONLY.contains(own) && !OWN_KEYS.contains(dotted(key))) {
        throw new OutboxConfigurationException(
            "Unknown outbox property " + key + ".",
            "The Spring Boot integration's own keys are outbox."
                + String.join(", outbox.", OWN_KEYS)
                + "; the outbox's options are listed in the README's configuration reference.",
            null);
      }
    }
  }

  /**
   * A key below {@code outbox.} in dotted kebab-case: {@code OUTBOX_HEALTH_MAX_LAG} is ambiguous,
   * read as {@code health.max-lag}.
   */
  private static String dotted(String key) {
    if (key.startsWith("outbox.")) {
      return key.substring(7);
    }
    String rest = key.substring(7).toLowerCase(Locale.ROOT).replace('_', '-');
    for (String own : OWN_KEYS) {
      if (own.replace('.', '-').equals(rest)) {
        return own;
      }
    }
    return rest;
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
