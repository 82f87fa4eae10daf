package dev.outbox.samples.brokers;

import com.google.inject.Module;
import dev.outbox.nats.NatsOutboxModule;
import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.nats.NatsStreamOptions;
import dev.outbox.samples.Redaction;
import dev.outbox.samples.SetupException;
import dev.outbox.spi.WireHeaders;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * NATS JetStream: a memory stream {@code OUTBOX_SAMPLE_<run>} on the subjects {@code sample<run>.>}
 * (the adapter's default subject {@code <prefix>.<aggregateType>.<eventType>} with this run's
 * prefix), read by an ordered consumer and deleted at the end.
 */
final class NatsBroker implements Broker {

  private final String url;
  private final String stream;
  private final String subjectPrefix;
  private final Connection connection;
  private MessageConsumer consumer;

  private NatsBroker(String url, String runId, Connection connection) {
    this.url = url;
    this.stream = "OUTBOX_SAMPLE_" + runId.toUpperCase(java.util.Locale.ROOT);
    this.subjectPrefix = "sample" + runId;
    this.connection = connection;
  }

  static NatsBroker open(String url, String runId) {
    Options options;
    try {
      options =
          new Options.Builder()
              .server(url)
              .connectionTimeout(Duration.ofSeconds(3))
              .maxReconnects(0)
              .errorListener(new ErrorListener() {})
              .connectionName("outbox-sample-consumer")
              .build();
    } catch (RuntimeException e) {
      throw new SetupException(
          "--nats-url must look like nats://host:4222, but was '"
              + Redaction.redact(url)
              + "': "
              + SetupException.describe(e));
    }
    Connection connection;
    try {
      connection = Nats.connect(options);
    } catch (Exception e) {
      throw new SetupException(
          "NATS is not reachable at "
              + Redaction.redact(url)
              + ": start nats-server -js there, or pass --nats-url");
    }
    NatsBroker broker = new NatsBroker(url, runId, connection);
    try {
      broker.declare();
      return broker;
    } catch (Exception e) {
      broker.closeConnection();
      throw new SetupException(
          "NATS at "
              + Redaction.redact(url)
              + " could not create stream "
              + broker.stream
              + " (is JetStream on? start nats-server with -js): "
              + SetupException.describe(e));
    }
  }

  private void declare() throws Exception {
    JetStreamManagement jsm = connection.jetStreamManagement();
    jsm.addStream(
        StreamConfiguration.builder()
            .name(stream)
            .subjects(subjectPrefix + ".>")
            .storageType(StorageType.Memory)
            .build());
  }

  @Override
  public String description() {
    return "NATS JetStream stream " + stream + " at " + Redaction.redact(url);
  }

  @Override
  public Module publisherModule() {
    return new NatsOutboxModule(
        NatsPublisherOptions.builder().servers(List.of(url)).subjectPrefix(subjectPrefix).stream(
                NatsStreamOptions.builder().create(false).name(stream).build())
            .connectionName("outbox-sample-publisher")
            .build());
  }

  @Override
  public void startConsumer(Consumer<ReceivedEvent> sink) {
    try {
      consumer =
          connection
              .getStreamContext(stream)
              .createOrderedConsumer(new OrderedConsumerConfiguration())
              .consume(message -> sink.accept(received(message)));
    } catch (Exception e) {
      throw new SetupException("Could not consume stream " + stream + ": " + e.getMessage());
    }
  }

  private static ReceivedEvent received(Message message) {
    Headers headers = message.getHeaders();
    return new ReceivedEvent(
        headers == null ? null : headers.getFirst(WireHeaders.MESSAGE_ID),
        headers == null ? null : headers.getFirst(WireHeaders.AGGREGATE_ID),
        headers == null ? null : headers.getFirst(WireHeaders.EVENT_TYPE),
        headers == null ? null : Brokers.instant(headers.getFirst(WireHeaders.OCCURRED_AT)),
        new String(message.getData(), StandardCharsets.UTF_8),
        Instant.now());
  }

  @Override
  public void close() {
    if (consumer != null) {
      consumer.stop();
    }
    try {
      connection.jetStreamManagement().deleteStream(stream);
    } catch (Exception e) {
      System.err.println("note: could not delete stream " + stream + ": " + e.getMessage());
    }
    closeConnection();
  }

  private void closeConnection() {
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
