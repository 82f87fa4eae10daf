package dev.outbox.benchmarks.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.NatsEventPublisher;
import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.nats.NatsStreamOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TcpProxy;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * NATS with JetStream on 127.0.0.1:4222: a file-backed stream {@value #STREAM} on {@code bench.>},
 * recreated at start and purged before each run, and the bare client's ceiling: {@code
 * publishAsync} of every message (same subject, {@code Nats-Msg-Id} and headers as the adapter)
 * with up to {@value #WINDOW} acknowledgements outstanding. A {@link TcpProxy} of its own in front
 * of the server lets the outage take NATS away from one publisher while the shared server keeps
 * running.
 */
public final class NatsBench implements BareClientBroker, ProxiedBroker, AutoCloseable {

  /** The stream. */
  public static final String STREAM = "BENCH";

  /** The relay's aggregate type. */
  public static final String AGGREGATE_TYPE = "bench-nats";

  private static final String HOST = "127.0.0.1";
  private static final int PORT = 4222;
  private static final String SERVER = "nats://" + HOST + ":" + PORT;
  private static final String PREFIX = "bench";
  private static final int WINDOW = 1_000;
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);

  private final Connection connection;
  private final TcpProxy proxy;

  private NatsBench(Connection connection, TcpProxy proxy) {
    this.connection = connection;
    this.proxy = proxy;
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public String ceilingBound() {
    return "bare jnats publishAsync, 1,000 acks outstanding";
  }

  @Override
  public String aggregateType() {
    return AGGREGATE_TYPE;
  }

  /**
   * Connects, recreates the stream and opens the proxy.
   *
   * @return the setup
   */
  public static NatsBench start() {
    try {
      Connection connection =
          Nats.connect(new Options.Builder().server(SERVER).connectionName("bench-admin").build());
      JetStreamManagement management = connection.jetStreamManagement();
      try {
        management.deleteStream(STREAM);
      } catch (JetStreamApiException e) {
        // not there
      }
      management.addStream(
          StreamConfiguration.builder()
              .name(STREAM)
              .subjects(PREFIX + ".>")
              .storageType(StorageType.File)
              .build());
      return new NatsBench(connection, new TcpProxy(HOST, PORT));
    } catch (IOException | JetStreamApiException e) {
      throw new IllegalStateException("NATS setup failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Empties the stream. */
  @Override
  public void purge() {
    try {
      connection.jetStreamManagement().purgeStream(STREAM);
    } catch (IOException | JetStreamApiException e) {
      throw new IllegalStateException("NATS purge failed: " + e, e);
    }
  }

  /**
   * A new adapter publisher on the stream's subjects.
   *
   * @return the publisher
   */
  @Override
  public EventPublisher publisher() {
    return publisher(SERVER);
  }

  @Override
  public TcpProxy proxy() {
    return proxy;
  }

  /**
   * A new adapter publisher on the stream's subjects through {@link #proxy()}, with the adapter's
   * default connection settings (reconnect wait 1 s). It connects at once: call it with the proxy
   * up.
   *
   * @return the publisher
   */
  @Override
  public EventPublisher publisherThroughProxy() {
    return publisher("nats://" + HOST + ":" + proxy.port());
  }

  private static EventPublisher publisher(String server) {
    return NatsEventPublisher.connect(
        NatsPublisherOptions.builder().servers(List.of(server)).subjectPrefix(PREFIX).stream(
                NatsStreamOptions.builder().name(STREAM).build())
            .build());
  }

  /**
   * The bare client's ceiling.
   *
   * @param messages how many
   * @param aggregates over how many aggregates
   * @return messages per second
   */
  @Override
  public double ceiling(int messages, int aggregates) {
    purge();
    try {
      JetStream jetStream = connection.jetStream();
      ArrayDeque<CompletableFuture<PublishAck>> window = new ArrayDeque<>();
      long start = System.nanoTime();
      for (int i = 0; i < messages; i++) {
        if (window.size() >= WINDOW) {
          window.poll().get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        window.add(jetStream.publishAsync(natsMessage(aggregates, i)));
      }
      while (!window.isEmpty()) {
        window.poll().get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
      return messages / ((System.nanoTime() - start) / 1e9);
    } catch (IOException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException("NATS ceiling failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      purge();
    }
  }

  private static NatsMessage natsMessage(int aggregates, int i) {
    OutboxMessage message = SyntheticMessages.message(AGGREGATE_TYPE, i, aggregates);
    Headers headers = new Headers();
    headers.put("Nats-Msg-Id", message.id().toString());
    WireHeaders.of(message).forEach(headers::put);
    return NatsMessage.builder()
        .subject(PREFIX + "." + message.aggregateType() + "." + message.eventType())
        .headers(headers)
        .data(message.payloadBytes())
        .build();
  }

  @Override
  public void close() {
    proxy.close();
    try {
      connection.jetStreamManagement().deleteStream(STREAM);
    } catch (IOException | JetStreamApiException e) {
      // recreated by the next run
    }
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
