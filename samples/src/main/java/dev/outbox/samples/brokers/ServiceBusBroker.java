package dev.outbox.samples.brokers;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.google.inject.Module;
import dev.outbox.samples.SetupException;
import dev.outbox.servicebus.ServiceBusOutboxModule;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import dev.outbox.spi.WireHeaders;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Azure Service Bus: a queue {@code outbox-sample-<run>} created through the administration client
 * (the connection string needs Manage rights), read by a processor in receive-and-delete mode with
 * one call at a time, and deleted at the end. There is no local default.
 */
final class ServiceBusBroker implements Broker {

  private static final Pattern ENDPOINT = Pattern.compile("(?i)Endpoint=sb://([^/;]+)/?;");

  private final String connectionString;
  private final String namespace;
  private final String queue;
  private final ServiceBusAdministrationClient admin;
  private ServiceBusProcessorClient processor;

  private ServiceBusBroker(String connectionString, String namespace, String runId) {
    this.connectionString = connectionString;
    this.namespace = namespace;
    this.queue = "outbox-sample-" + runId;
    this.admin =
        new ServiceBusAdministrationClientBuilder()
            .connectionString(connectionString)
            .buildClient();
  }

  static ServiceBusBroker open(String connectionString, String runId) {
    if (connectionString == null || connectionString.isBlank()) {
      throw new SetupException(
          "azure-servicebus has no local default: pass --servicebus-connection-string"
              + " 'Endpoint=sb://<namespace>.servicebus.windows.net/;SharedAccessKeyName=<name>;"
              + "SharedAccessKey=<key>' with Manage rights (the demo creates and deletes a queue)");
    }
    Matcher endpoint = ENDPOINT.matcher(connectionString + ";");
    if (!endpoint.find() || !connectionString.toLowerCase().contains("sharedaccess")) {
      throw new SetupException(
          "--servicebus-connection-string must look like Endpoint=sb://<namespace>.servicebus"
              + ".windows.net/;SharedAccessKeyName=<name>;SharedAccessKey=<key>");
    }
    ServiceBusBroker broker;
    try {
      broker = new ServiceBusBroker(connectionString, endpoint.group(1), runId);
      broker.admin.createQueue(broker.queue);
      return broker;
    } catch (RuntimeException e) {
      throw new SetupException(
          "Service Bus namespace "
              + endpoint.group(1)
              + " did not create the demo queue (is it reachable, and does the key have Manage"
              + " rights?): "
              + SetupException.describe(e));
    }
  }

  @Override
  public String description() {
    return "Azure Service Bus queue " + queue + " in " + namespace;
  }

  @Override
  public Module publisherModule() {
    return new ServiceBusOutboxModule(
        ServiceBusPublisherOptions.builder()
            .connectionString(connectionString)
            .entity(queue)
            .build());
  }

  @Override
  public void startConsumer(Consumer<ReceivedEvent> sink) {
    processor =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .processor()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .maxConcurrentCalls(1)
            .processMessage(context -> sink.accept(received(context.getMessage())))
            .processError(context -> {})
            .buildProcessorClient();
    processor.start();
  }

  private static ReceivedEvent received(ServiceBusReceivedMessage message) {
    Map<String, Object> properties = message.getApplicationProperties();
    Object aggregateId = properties.get(WireHeaders.AGGREGATE_ID);
    return new ReceivedEvent(
        message.getMessageId(),
        aggregateId == null ? null : aggregateId.toString(),
        message.getSubject(),
        Brokers.instant(properties.get(WireHeaders.OCCURRED_AT)),
        message.getBody().toString(),
        Instant.now());
  }

  @Override
  public void close() {
    if (processor != null) {
      processor.close();
    }
    try {
      admin.deleteQueue(queue);
    } catch (RuntimeException e) {
      System.err.println(
          "note: could not delete queue " + queue + ": " + SetupException.describe(e));
    }
  }
}
