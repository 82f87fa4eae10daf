package dev.outbox.nats;

import dev.outbox.IncomingMessage;
import dev.outbox.spi.WireHeaders;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.support.NatsJetStreamConstants;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a consumed NATS message as an {@link IncomingMessage}, for an inbox: the outbox's fields
 * come from the NATS headers ({@link WireHeaders}), the id from {@code Nats-Msg-Id} when the
 * {@value WireHeaders#MESSAGE_ID} header is missing, the payload from the data.
 *
 * <pre>{@code
 * for (Message message : subscription.fetch(100, Duration.ofSeconds(1))) {
 *   inbox.receive(NatsIncoming.of(message), handler);
 *   message.ack();
 * }
 * }</pre>
 */
public final class NatsIncoming {

  private NatsIncoming() {}

  /**
   * Reads a message, from JetStream (pull, push or ordered consumer) or core NATS. Of several
   * values of one header the last wins.
   *
   * @param message the message as the client delivered it
   * @return the message
   * @throws NullPointerException when {@code message} is {@code null}
   * @throws IllegalArgumentException when the message has neither the {@value
   *     WireHeaders#MESSAGE_ID} header nor {@code Nats-Msg-Id}, or its outbox headers are malformed
   *     ({@link IncomingMessage#of(Map, byte[], String)})
   */
  public static IncomingMessage of(Message message) {
    Objects.requireNonNull(message, "message");
    Headers natsHeaders = message.getHeaders();
    Map<String, String> headers = new LinkedHashMap<>();
    String brokerMessageId = null;
    if (natsHeaders != null) {
      for (Map.Entry<String, List<String>> header : natsHeaders.entrySet()) {
        List<String> values = header.getValue();
        if (values != null && !values.isEmpty()) {
          headers.put(header.getKey(), values.get(values.size() - 1));
        }
      }
      brokerMessageId = natsHeaders.getFirst(NatsJetStreamConstants.MSG_ID_HDR);
    }
    return IncomingMessage.of(headers, message.getData(), brokerMessageId);
  }
}
