package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxOptions;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The IDE metadata ({@code META-INF/spring-configuration-metadata.json}) names exactly the keys the
 * outbox's binders and the integration read, each with a type and a description: a new option
 * without metadata, or metadata of a removed one, fails here.
 */
class ConfigurationMetadataTest {

  @Test
  void theMetadataNamesExactlyTheKeysThatAreRead() throws IOException {
    List<String> read = new ArrayList<>(OutboxOptions.keys("outbox"));
    read.addAll(KafkaPublisherOptions.keys("outbox.kafka"));
    read.addAll(RabbitMqPublisherOptions.keys("outbox.rabbitmq"));
    read.addAll(NatsPublisherOptions.keys("outbox.nats"));
    read.addAll(ServiceBusPublisherOptions.keys("outbox.servicebus"));
    read.addAll(InboxOptions.keys("outbox.inbox"));
    OutboxProperties.OWN_KEYS.stream()
        .filter(key -> !key.equals("inbox.*"))
        .forEach(key -> read.add("outbox." + key));
    Set<String> expected = new TreeSet<>();
    read.forEach(
        key -> expected.add(key.endsWith(".*") ? key.substring(0, key.length() - 2) : key));

    Set<String> described = new TreeSet<>();
    for (JsonNode property : metadata().get("properties")) {
      String name = property.get("name").asText();
      described.add(name);
      assertThat(property.path("type").asText()).as("type of %s", name).isNotBlank();
      assertThat(property.path("description").asText()).as("description of %s", name).isNotBlank();
    }

    assertThat(described).containsExactlyElementsOf(expected);
  }

  @Test
  void everyHintAndGroupBelongsToTheOutbox() throws IOException {
    JsonNode metadata = metadata();
    for (JsonNode hint : metadata.get("hints")) {
      assertThat(hint.get("name").asText()).startsWith("outbox.");
      assertThat(hint.get("values")).isNotEmpty();
    }
    for (JsonNode group : metadata.get("groups")) {
      assertThat(group.get("name").asText()).startsWith("outbox");
    }
  }

  private static JsonNode metadata() throws IOException {
    try (InputStream in =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }
}
