package dev.outbox.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The connector configuration: the outbox table, the router's mapping, no password shown. */
class OutboxConnectorConfigTest {

  @Test
  void theConfigurationReadsTheOutboxTableAndRoutesByAggregateType() {
    OutboxConnectorConfig config =
        OutboxConnectorConfig.builder(
                OutboxOptions.builder().outboxTable("sales.orders_outbox").build())
            .database("db.internal", 5433, "orders")
            .user("debezium", "s3cret")
            .slot("orders_outbox")
            .topicPrefix("orders.")
            .build();

    assertThat(config.toMap())
        .containsEntry("table.include.list", "sales.orders_outbox")
        .containsEntry("database.port", "5433")
        .containsEntry("slot.name", "orders_outbox")
        .containsEntry("plugin.name", "pgoutput")
        .containsEntry("transforms", "outbox,wire")
        .containsEntry("transforms.outbox.table.field.event.key", "aggregate_id")
        .containsEntry("transforms.outbox.route.topic.replacement", "orders.${routedByValue}")
        .containsEntry(
            "transforms.outbox.table.fields.additional.placement",
            "aggregate_type:header:aggregate_type,aggregate_id:header:aggregate_id,seq:header:seq,"
                + "event_type:header:event_type,content_type:header:content_type,"
                + "occurred_at:header:occurred_at,headers:header:headers,epoch:header:epoch")
        .containsEntry("transforms.wire.type", "dev.outbox.cdc.OutboxWireHeaders")
        .containsEntry("database.password", "s3cret");
    assertThat(config.toProperties().getProperty("database.dbname")).isEqualTo("orders");
    assertThat(
            OutboxConnectorConfig.builder(OutboxOptions.defaults())
                .database("h", 5432, "d")
                .user("u", null)
                .build()
                .toMap())
        .containsEntry("table.include.list", "public.outbox_messages")
        .doesNotContainKey("database.password");
  }

  @Test
  void thePasswordNeverShowsInToString() {
    OutboxConnectorConfig config =
        OutboxConnectorConfig.builder(OutboxOptions.defaults())
            .database("h", 5432, "d")
            .user("u", "s3cret")
            .build();

    assertThat(config.toString()).doesNotContain("s3cret").contains("database.password=****");
  }

  @Test
  void badInputFailsNamingTheField() {
    OutboxConnectorConfig.Builder builder = OutboxConnectorConfig.builder(OutboxOptions.defaults());

    assertThatThrownBy(builder::build)
        .hasMessageContaining("needs database(host, port, name) and user(name, password)");
    assertThatThrownBy(() -> builder.slot("Outbox-Slot"))
        .hasMessageContaining("slot must be lower-case letters, digits and _");
    assertThatThrownBy(() -> builder.database("h", 0, "d"))
        .hasMessage("port must be between 1 and 65535, but was 0");
    assertThatThrownBy(() -> builder.topicPrefix("${x}"))
        .hasMessageContaining("topicPrefix must not be null or contain $");
  }

  @Test
  void theConnectorJsonInTheDocsIsWhatTheBuilderMakes() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "cdc.md"));
    int start = doc.indexOf("```json") + "```json".length();
    JsonNode json = new ObjectMapper().readTree(doc.substring(start, doc.indexOf("```", start)));
    Map<String, String> documented = new LinkedHashMap<>();
    documented.put("name", json.get("name").asText());
    json.get("config")
        .fields()
        .forEachRemaining(e -> documented.put(e.getKey(), e.getValue().asText()));

    Map<String, String> built =
        OutboxConnectorConfig.builder(OutboxOptions.defaults())
            .database("db.internal", 5432, "orders")
            .user("debezium", "...")
            .build()
            .toMap();
    assertThat(documented).containsExactlyEntriesOf(built);
  }
}
