package dev.outbox.kafka;

import dev.outbox.kafka.internal.ProducerSettings;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The raw producer properties passed through to the Kafka client (security, compression, linger,
 * ...), each checked against the ones the adapter owns. Values whose name suggests a secret are
 * masked in {@link #toString()}.
 *
 * @param properties unmodifiable, sorted by name
 */
record ProducerPropertySettings(Map<String, String> properties) {

  static final ProducerPropertySettings DEFAULTS = new ProducerPropertySettings(Map.of());

  ProducerPropertySettings {
    properties = Collections.unmodifiableMap(new TreeMap<>(properties));
  }

  /** Adds one property, replacing an earlier value of the same name. */
  ProducerPropertySettings withProperty(String name, String value) {
    ProducerSettings.checkPassThrough(name, value);
    Map<String, String> copy = new TreeMap<>(properties);
    copy.put(name, value);
    return new ProducerPropertySettings(copy);
  }

  /** Replaces all properties. */
  ProducerPropertySettings withProperties(Map<String, String> values) {
    Objects.requireNonNull(values, "producerProperties must not be null");
    values.forEach(ProducerSettings::checkPassThrough);
    return new ProducerPropertySettings(values);
  }

  /** Checks that the delivery timeout covers the linger and the request timeout. */
  void checkTogether() {
    ProducerSettings.checkTimeouts(properties);
  }

  @Override
  public String toString() {
    return "ProducerPropertySettings[" + ProducerSettings.masked(properties) + ']';
  }
}
