package dev.outbox.kafka;

import static dev.outbox.spi.OptionText.quote;

import dev.outbox.OutboxMessage;
import java.util.Objects;
import java.util.function.Function;

/**
 * Which topic each message goes to: the router's topic for the message, after the prefix.
 *
 * @param topicPrefix prepended to every topic, may be empty
 * @param topicRouter from message to topic, before the prefix
 */
record TopicSettings(String topicPrefix, Function<OutboxMessage, String> topicRouter) {

  static final TopicSettings DEFAULTS =
      new TopicSettings(
          KafkaPublisherOptions.DEFAULT_TOPIC_PREFIX, KafkaPublisherOptions.DEFAULT_TOPIC_ROUTER);

  TopicSettings withTopicPrefix(String prefix) {
    if (prefix == null || !prefix.matches("[a-zA-Z0-9._-]{0,200}")) {
      throw new IllegalArgumentException(
          "topicPrefix must match [a-zA-Z0-9._-]{0,200}, but was " + quote(prefix));
    }
    return new TopicSettings(prefix, topicRouter);
  }

  TopicSettings withTopicRouter(Function<OutboxMessage, String> router) {
    return new TopicSettings(
        topicPrefix, Objects.requireNonNull(router, "topicRouter must not be null"));
  }

  /** The prefix followed by the router's topic; a null or blank topic is an error. */
  String topicFor(OutboxMessage message) {
    String topic = topicRouter.apply(message);
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException(
          "topicRouter returned " + (topic == null ? "null" : "a blank topic") + " for " + message);
    }
    return topicPrefix + topic;
  }
}
