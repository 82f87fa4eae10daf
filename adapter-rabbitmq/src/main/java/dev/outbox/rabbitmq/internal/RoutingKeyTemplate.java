package dev.outbox.rabbitmq.internal;

import dev.outbox.OutboxMessage;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A routing key written as text with placeholders: {@code {eventType}}, {@code {aggregateType}} and
 * {@code {aggregateId}}, e.g. {@code "{aggregateType}.{eventType}"}. Lets the routing key be set
 * from properties, where a function cannot be.
 */
public final class RoutingKeyTemplate implements Function<OutboxMessage, String> {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z]+)}");

  private final String template;

  private RoutingKeyTemplate(String template) {
    this.template = template;
  }

  /**
   * Checks and compiles a template.
   *
   * @param template the text, with placeholders
   * @return the routing key function
   * @throws IllegalArgumentException naming an unknown placeholder or a key over 255 bytes
   */
  public static RoutingKeyTemplate of(String template) {
    if (template == null) {
      throw new IllegalArgumentException("routingKey must not be null");
    }
    Matcher matcher = PLACEHOLDER.matcher(template);
    while (matcher.find()) {
      String name = matcher.group(1);
      if (!name.equals("eventType")
          && !name.equals("aggregateType")
          && !name.equals("aggregateId")) {
        throw new IllegalArgumentException(
            "routingKey may use {eventType}, {aggregateType} and {aggregateId}, but was "
                + template);
      }
    }
    return new RoutingKeyTemplate(template);
  }

  @Override
  public String apply(OutboxMessage message) {
    return template
        .replace("{eventType}", message.eventType())
        .replace("{aggregateType}", message.aggregateType())
        .replace("{aggregateId}", message.aggregateId());
  }

  @Override
  public String toString() {
    return template;
  }
}
