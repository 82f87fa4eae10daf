package dev.outbox.servicebus.testing;

import static org.apache.activemq.artemis.protocol.amqp.proton.AmqpSupport.AMQP_LINK_INITIALIZER_KEY;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.activemq.artemis.protocol.amqp.proton.AMQPConnectionContext;
import org.apache.activemq.artemis.protocol.amqp.proton.ProtonDeliveryHandler;
import org.apache.activemq.artemis.protocol.amqp.proton.handler.EventHandler;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.message.Message;

/**
 * Added to every AMQP connection of the local broker: advertises a max-message-size on each link
 * (the SDK sizes its batches from it), and answers the SDK's claims-based-security {@code
 * put-token} requests on {@code $cbs} itself, on this connection's reply link, as Service Bus does:
 * status 202 for a shared access signature signed with the namespace's key ({@link
 * SharedAccessKeys}), 401 {@code InvalidSignature} for any other token.
 */
final class CbsAndLinkEmulation implements EventHandler {

  static final String CBS = "$cbs";
  private static final AtomicLong TAGS = new AtomicLong();

  private final AMQPConnectionContext connection;
  private final UnsignedLong maxMessageSize;
  private final SharedAccessKeys keys;
  private final Deque<Message> replies = new ArrayDeque<>();
  private Sender replyLink;

  CbsAndLinkEmulation(
      AMQPConnectionContext connection, long maxMessageSize, SharedAccessKeys keys) {
    this.connection = connection;
    this.maxMessageSize = UnsignedLong.valueOf(maxMessageSize);
    this.keys = keys;
  }

  @Override
  public void onInit(Link link) {
    link.setMaxMessageSize(maxMessageSize);
    if (isCbs(link)) {
      // Runs instead of the broker's own link setup (see AMQPConnectionContext.remoteLinkOpened).
      link.attachments().set(AMQP_LINK_INITIALIZER_KEY, Runnable.class, () -> openCbs(link));
    }
  }

  private static boolean isCbs(Link link) {
    if (link instanceof Receiver) {
      return link.getRemoteTarget() instanceof Target t && CBS.equals(t.getAddress());
    }
    return link.getRemoteSource() instanceof Source s && CBS.equals(s.getAddress());
  }

  private void openCbs(Link link) {
    link.setSource(link.getRemoteSource());
    link.setTarget(link.getRemoteTarget());
    link.setSenderSettleMode(link.getRemoteSenderSettleMode());
    link.setReceiverSettleMode(link.getRemoteReceiverSettleMode());
    link.setContext(new CbsLink(link));
    link.open();
    if (link instanceof Receiver receiver) {
      receiver.flow(100);
    } else {
      replyLink = (Sender) link;
    }
    connection.flush();
  }

  private void onRequest(Delivery delivery) {
    Receiver receiver = (Receiver) delivery.getLink();
    if (delivery.isPartial()) {
      return;
    }
    byte[] bytes = new byte[delivery.available()];
    receiver.recv(bytes, 0, bytes.length);
    receiver.advance();
    delivery.disposition(Accepted.getInstance());
    delivery.settle();
    receiver.flow(1);
    Message request = Message.Factory.create();
    request.decode(bytes, 0, bytes.length);
    Message reply = Message.Factory.create();
    reply.setCorrelationId(request.getMessageId());
    Object token =
        request.getBody() instanceof AmqpValue value ? value.getValue() : request.getBody();
    reply.setApplicationProperties(
        keys.accepts(String.valueOf(token))
            ? new ApplicationProperties(
                Map.of("status-code", 202, "status-description", "Accepted"))
            : new ApplicationProperties(
                Map.of("status-code", 401, "status-description", SharedAccessKeys.REFUSED)));
    replies.add(reply);
    sendReplies();
  }

  private void sendReplies() {
    while (replyLink != null && replyLink.getCredit() > 0 && !replies.isEmpty()) {
      Message reply = replies.poll();
      byte[] buffer = new byte[4096];
      int size = reply.encode(buffer, 0, buffer.length);
      Delivery delivery = replyLink.delivery(Long.toString(TAGS.incrementAndGet()).getBytes());
      replyLink.send(buffer, 0, size);
      replyLink.advance();
      delivery.settle();
    }
    connection.flush();
  }

  /** The context of the two {@code $cbs} links of a connection. */
  private final class CbsLink implements ProtonDeliveryHandler {
    private final Link link;

    CbsLink(Link link) {
      this.link = link;
    }

    @Override
    public void onFlow(int currentCredits, boolean drain) {
      sendReplies();
    }

    @Override
    public void onMessage(Delivery delivery) {
      onRequest(delivery);
    }

    @Override
    public void close(boolean remoteLinkClose) {
      if (link == replyLink) {
        replyLink = null;
      }
    }

    @Override
    public void close(ErrorCondition condition) {
      close(true);
    }
  }
}
