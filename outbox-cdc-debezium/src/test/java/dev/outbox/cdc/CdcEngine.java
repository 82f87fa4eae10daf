package dev.outbox.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's embedded engine on the connector configuration, with offsets in a file that outlives
 * it and committed after every batch, handing each record to the sink before it is marked processed
 * (as a relay would after the broker's acknowledgement).
 */
final class CdcEngine implements AutoCloseable {

  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final ExecutorService thread;
  private final AtomicReference<Throwable> failure;

  private CdcEngine(
      DebeziumEngine<RecordChangeEvent<SourceRecord>> engine,
      ExecutorService thread,
      AtomicReference<Throwable> failure) {
    this.engine = engine;
    this.thread = thread;
    this.failure = failure;
  }

  static CdcEngine start(OutboxConnectorConfig config, Path offsets, ReceivedRecords sink) {
    Properties properties = config.toProperties();
    properties.setProperty(
        "offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
    properties.setProperty("offset.storage.file.filename", offsets.toString());
    properties.setProperty("offset.flush.interval.ms", "0");
    CountDownLatch polling = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    DebeziumEngine<RecordChangeEvent<SourceRecord>> engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(properties)
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    polling.countDown();
                  }
                })
            .using(
                (success, message, error) -> {
                  if (!success) {
                    failure.set(error != null ? error : new IllegalStateException(message));
                    polling.countDown();
                  }
                })
            .notifying(
                (batch, committer) -> {
                  for (RecordChangeEvent<SourceRecord> event : batch) {
                    sink.add(event.record());
                    committer.markProcessed(event);
                  }
                  committer.markBatchFinished();
                })
            .build();
    ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium"));
    thread.execute(engine);
    CdcEngine started = new CdcEngine(engine, thread, failure);
    try {
      if (!polling.await(60, TimeUnit.SECONDS) || failure.get() != null) {
        started.close();
        throw new IllegalStateException("The Debezium engine did not start", failure.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return started;
  }

  @Override
  public void close() {
    try {
      engine.close();
    } catch (IOException | IllegalStateException e) {
      // already stopped: its failure, if any, is in the sink
    }
    thread.shutdown();
    try {
      thread.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
