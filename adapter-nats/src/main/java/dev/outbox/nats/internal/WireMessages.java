package dev.outbox.nats.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.util.Locale;
import java.util.Map;

/**
 * Turns an outbox message into a NATS message: the payload as UTF-8, and as headers every {@link
 * WireHeaders} name (the standard ones and every row header). {@code Nats-Msg-Id} is added by the
 * publish options. Row headers named {@code Nats-*} are left out: they are JetStream's control
 * headers, and letting metadata set them would forge de-duplication or publish expectations.
 */
public final class WireMessages {

  private WireMessages() {}

  /**
   * The NATS message.
   *
   * @param message the outbox message
   * @param subject its subject
   * @return the message
   * @throws IllegalArgumentException naming a header NATS cannot carry (not printable ASCII)
   */
  public static Message toNats(OutboxMessage message, String subject) {
    Headers headers = new Headers();
    for (Map.Entry<String, String> header : WireHeaders.of(message).entrySet()) {
      String name = header.getKey();
      if (isNatsControlHeader(name) || header.getValue() == null) {
        continue;
      }
      try {
        headers.add(name, header.getValue());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "header "
                + name
                + " cannot be sent: NATS header names and values are printable ASCII only ("
                + e.getMessage()
                + ')',
            e);
      }
    }
    return NatsMessage.builder()
        .subject(subject)
        .headers(headers)
        .data(message.payloadBytes())
        .build();
  }

  /**
   * Whether a header name is one of JetStream's control headers ({@code Nats-Msg-Id}, {@code
   * Nats-Expected-Stream}, ...).
   *
   * @param name a header name
   * @return {@code true} for {@code Nats-*}, ignoring case
   */
  public static boolean isNatsControlHeader(String name) {
    return name.toLowerCase(Locale.ROOT).startsWith("nats-");
  }
}
