package dev.outbox.micrometer;

import dev.outbox.spi.OptionText;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** The checks of the builder's setters; each message names the option and the bad value. */
final class MetricsChecks {

  /** Tag keys the meters set themselves, which a common tag would silently replace. */
  private static final Set<String> RESERVED_KEYS = Set.of("event.type", "destination");

  private MetricsChecks() {}

  static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }

  static Duration notNegative(String field, Duration value) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(field + " must be >= 0, but was " + value);
    }
    return value;
  }

  static List<Duration> positive(String field, Duration... values) {
    notNull(field, values);
    for (Duration value : values) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(
            field + " must each be > 0, but was " + value + " in " + Arrays.toString(values));
      }
    }
    return List.of(values);
  }

  static List<Tag> pairs(String... keyValues) {
    notNull("commonTags", keyValues);
    if (keyValues.length % 2 != 0) {
      throw new IllegalArgumentException(
          "commonTags must be key/value pairs, but had "
              + keyValues.length
              + " strings: "
              + Arrays.toString(keyValues));
    }
    List<Tag> tags = new ArrayList<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      tags.add(tag(keyValues[i], keyValues[i + 1]));
    }
    return tags;
  }

  static Tags commonTags(Iterable<Tag> tags) {
    notNull("commonTags", tags);
    List<Tag> checked = new ArrayList<>();
    for (Tag tag : tags) {
      checked.add(tag(notNull("commonTags element", tag).getKey(), tag.getValue()));
    }
    return Tags.of(checked);
  }

  private static Tag tag(String key, String value) {
    OptionText.requireText("commonTags key", key);
    if (RESERVED_KEYS.contains(key)) {
      throw new IllegalArgumentException(
          "commonTags must not use the key "
              + OptionText.quote(key)
              + ", which the meters set themselves, but had "
              + key
              + "="
              + value);
    }
    return Tag.of(key, notNull("commonTags value of " + OptionText.quote(key), value));
  }
}
