package dev.outbox.servicebus.testing;

import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.Message;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.RoutingContext;
import org.apache.activemq.artemis.core.server.impl.RoutingContextImpl;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerConnectionPlugin;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerMessagePlugin;
import org.apache.activemq.artemis.protocol.amqp.broker.AMQPMessage;
import org.apache.activemq.artemis.protocol.amqp.broker.AMQPStandardMessage;
import org.apache.activemq.artemis.protocol.amqp.broker.ActiveMQProtonRemotingConnection;
import org.apache.activemq.artemis.spi.core.protocol.RemotingConnection;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.ReadableBuffer;

/**
 * Makes the embedded Artemis look enough like Service Bus for the Azure SDK: per connection see
 * {@link CbsAndLinkEmulation}; per message routed to a queue, splits a batch transfer (message
 * format {@code 0x80013700}, one inner message per data section) into its messages and gives each a
 * durable Header and the {@code x-opt-enqueued-time} and {@code x-opt-sequence-number} annotations
 * the SDK receiver needs. Uses Artemis internals: pinned to the tested version.
 */
public final class ServiceBusEmulationPlugin
    implements ActiveMQServerConnectionPlugin, ActiveMQServerMessagePlugin {

  static final long BATCH_FORMAT = 0x80013700L;
  private static final Symbol ENQUEUED_TIME = Symbol.valueOf("x-opt-enqueued-time");
  private static final Symbol SEQUENCE_NUMBER = Symbol.valueOf("x-opt-sequence-number");
  private static final SimpleString SEQUENCE_KEY = SimpleString.of("x-opt-sequence-number");

  private final long maxMessageSize;
  private final SharedAccessKeys keys;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong batchTransfers = new AtomicLong();
  private volatile ActiveMQServer server;

  /**
   * Creates the plugin.
   *
   * @param maxMessageSize advertised on every link: the SDK's batch size limit
   * @param keyName the name of the namespace's shared access key
   * @param key the key, which signs every token the namespace accepts
   */
  public ServiceBusEmulationPlugin(long maxMessageSize, String keyName, String key) {
    this.maxMessageSize = maxMessageSize;
    this.keys = new SharedAccessKeys(keyName, key);
  }

  /**
   * How many batch transfers were split so far, counting a topic's copies once per subscription.
   *
   * @return the count
   */
  public long batchTransfers() {
    return batchTransfers.get();
  }

  @Override
  public void registered(ActiveMQServer server) {
    this.server = server;
  }

  @Override
  public void afterCreateConnection(RemotingConnection connection) {
    if (connection instanceof ActiveMQProtonRemotingConnection amqp) {
      amqp.getAmqpConnection()
          .addEventHandler(new CbsAndLinkEmulation(amqp.getAmqpConnection(), maxMessageSize, keys));
    }
  }

  @Override
  public void beforeMessageRoute(
      Message message, RoutingContext context, boolean direct, boolean rejectDuplicates)
      throws ActiveMQException {
    if (!(message instanceof AMQPMessage amqp)
        || context.getQueueCount() == 0
        || amqp.getAnnotation(SEQUENCE_KEY) != null) {
      return; // not AMQP, a topic whose diverts route copies, or already emulated
    }
    SimpleString address = message.getAddressSimpleString();
    List<byte[]> parts = split(amqp);
    context.clear();
    try {
      for (byte[] part : parts) {
        AMQPStandardMessage stored = new AMQPStandardMessage(0, annotate(part), null);
        stored.setAddress(address);
        stored.setMessageID(server.getStorageManager().generateID());
        server
            .getPostOffice()
            .route(stored, new RoutingContextImpl(context.getTransaction()), direct);
      }
    } catch (ActiveMQException e) {
      throw e;
    } catch (Exception e) {
      throw new ActiveMQException(e.getMessage());
    }
  }

  /** The message as the broker would send it: its AMQP encoding. */
  static byte[] encoded(AMQPMessage message) {
    ReadableBuffer data = message.getSendBuffer(1, null);
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    return bytes;
  }

  private List<byte[]> split(AMQPMessage message) {
    byte[] bytes = encoded(message);
    if ((message.getMessageFormat() & 0xFFFFFFFFL) != BATCH_FORMAT) {
      return List.of(bytes);
    }
    batchTransfers.incrementAndGet();
    DecoderImpl decoder = new DecoderImpl();
    AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
    ReadableBuffer buffer = ReadableBuffer.ByteBufferReader.wrap(bytes);
    decoder.setBuffer(buffer);
    List<byte[]> parts = new ArrayList<>();
    while (buffer.hasRemaining()) {
      if (decoder.readObject() instanceof Data section) {
        Binary binary = section.getValue();
        byte[] part = new byte[binary.getLength()];
        System.arraycopy(binary.getArray(), binary.getArrayOffset(), part, 0, part.length);
        parts.add(part);
      }
    }
    return parts;
  }

  private byte[] annotate(byte[] encoded) {
    org.apache.qpid.proton.message.Message message =
        org.apache.qpid.proton.message.Message.Factory.create();
    message.decode(encoded, 0, encoded.length);
    Header header = message.getHeader() == null ? new Header() : message.getHeader();
    header.setDurable(true);
    message.setHeader(header);
    Map<Symbol, Object> annotations = new HashMap<>();
    if (message.getMessageAnnotations() != null) {
      annotations.putAll(message.getMessageAnnotations().getValue());
    }
    annotations.put(ENQUEUED_TIME, new Date());
    annotations.put(SEQUENCE_NUMBER, sequence.incrementAndGet());
    message.setMessageAnnotations(new MessageAnnotations(annotations));
    byte[] buffer = new byte[encoded.length + 256];
    int size;
    while (true) {
      try {
        size = message.encode(buffer, 0, buffer.length);
        break;
      } catch (java.nio.BufferOverflowException e) {
        buffer = new byte[buffer.length * 2];
      }
    }
    return java.util.Arrays.copyOf(buffer, size);
  }
}
