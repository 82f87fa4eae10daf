package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.AmqpTransportType;
import dev.outbox.testkit.DocumentedKeys;
import dev.outbox.testkit.TestMessages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ServiceBusPublisherOptionsTest {

  private static final String SECRET = "c2VjcmV0LWtleS12YWx1ZQ==";
  private static final String CONNECTION =
      "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=" + SECRET;

  private static ServiceBusPublisherOptions.Builder valid() {
    return ServiceBusPublisherOptions.builder().connectionString(CONNECTION);
  }

  @Test
  void defaultsAreTheDocumentedConstants() {
    ServiceBusPublisherOptions options = valid().build();

    assertThat(options.entityResolver().apply(TestMessages.message("orders", "o-1")))
        .isEqualTo(ServiceBusPublisherOptions.DEFAULT_ENTITY);
    assertThat(options.sessionEnabled()).isFalse();
    assertThat(options.correlationIdHeader())
        .isEqualTo(ServiceBusPublisherOptions.DEFAULT_CORRELATION_ID_HEADER);
    assertThat(options.tryTimeout()).isEqualTo(ServiceBusPublisherOptions.DEFAULT_TRY_TIMEOUT);
    assertThat(options.maxRetries()).isEqualTo(ServiceBusPublisherOptions.DEFAULT_MAX_RETRIES);
    assertThat(options.transportType()).isEqualTo(AmqpTransportType.AMQP);
  }

  @Test
  void connectionStringAndKeyNeverAppearInToString() {
    String text = valid().entity("orders").build().toString();

    assertThat(text).doesNotContain(SECRET).doesNotContain("SharedAccessKey").contains("orders");
  }

  @Test
  void settersNameTheFieldAndTheBadValue() {
    assertThatThrownBy(() -> valid().tryTimeout(Duration.ZERO))
        .hasMessage("tryTimeout must be > 0, but was PT0S");
    assertThatThrownBy(() -> valid().maxRetries(-1))
        .hasMessage("maxRetries must be 0..10, but was -1");
    assertThatThrownBy(() -> valid().entity(" "))
        .hasMessage("entity must not be blank, but was ' '");
    assertThatThrownBy(() -> valid().connectionString("nonsense"))
        .hasMessageStartingWith("connectionString must contain Endpoint=")
        .hasMessageNotContaining("nonsense");
  }

  @Test
  void buildWithoutConnectionStringOrNamespaceFails() {
    assertThatThrownBy(() -> ServiceBusPublisherOptions.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectionString or namespace");
  }

  @Test
  void fromPropertiesReadsEveryKeyUnderThePrefix() {
    Properties properties = new Properties();
    properties.setProperty("outbox.sb.connection-string", CONNECTION);
    properties.setProperty("outbox.sb.entity", "orders");
    properties.setProperty("outbox.sb.session-enabled", "true");
    properties.setProperty("outbox.sb.correlation-id-header", "x-correlation");
    properties.setProperty("outbox.sb.try-timeout", "PT3S");
    properties.setProperty("outbox.sb.max-retries", "2");
    properties.setProperty("outbox.sb.transport-type", "amqp_web_sockets");
    properties.setProperty("other.entity", "ignored");

    ServiceBusPublisherOptions options =
        ServiceBusPublisherOptions.fromProperties(properties, "outbox.sb.");

    assertThat(options.connectionString()).isEqualTo(CONNECTION);
    assertThat(options.entityResolver().apply(TestMessages.message("x", "1"))).isEqualTo("orders");
    assertThat(options.sessionEnabled()).isTrue();
    assertThat(options.correlationIdHeader()).isEqualTo("x-correlation");
    assertThat(options.tryTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(options.maxRetries()).isEqualTo(2);
    assertThat(options.transportType()).isEqualTo(AmqpTransportType.AMQP_WEB_SOCKETS);
    properties.setProperty("outbox.sb.transport-type", "amqp-web-sockets");
    assertThat(ServiceBusPublisherOptions.fromProperties(properties, "outbox.sb.").transportType())
        .as("the README's spelling")
        .isEqualTo(AmqpTransportType.AMQP_WEB_SOCKETS);
  }

  @Test
  void fromMapReadsEnvironmentStyleKeys() {
    ServiceBusPublisherOptions options =
        ServiceBusPublisherOptions.fromMap(
            Map.of(
                "OUTBOX_SERVICEBUS_CONNECTION_STRING",
                CONNECTION,
                "OUTBOX_SERVICEBUS_TRY_TIMEOUT",
                "1500ms"),
            "OUTBOX_SERVICEBUS_");

    assertThat(options.connectionString()).isEqualTo(CONNECTION);
    assertThat(options.tryTimeout()).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void badPropertyValuesAndUnknownKeysNameTheKeyAndNeverShowTheConnectionString() {
    assertThatThrownBy(
            () ->
                ServiceBusPublisherOptions.fromMap(
                    Map.of("sb.connection-string", CONNECTION, "sb.session-enabled", "yes"), "sb"))
        .hasMessage("sb.session-enabled: expected true or false, but was \"yes\"");
    assertThatThrownBy(
            () -> ServiceBusPublisherOptions.fromMap(Map.of("sb.connection-string", " "), "sb"))
        .hasMessageStartingWith("sb.connection-string: ")
        .hasMessageEndingWith("(the value is a secret)");
    assertThatThrownBy(
            () -> ServiceBusPublisherOptions.fromMap(Map.of("SB_ENTITY_NAME", "orders"), "SB_"))
        .hasMessageStartingWith("Unknown Service Bus publisher option SB_ENTITY_NAME;")
        .hasMessageContaining("sb.entity");
  }

  @Test
  void theReadmeListsExactlyTheKeys() {
    DocumentedKeys.assertListed(
        Path.of("README.md"),
        "outbox.servicebus.",
        ServiceBusPublisherOptions.keys("outbox.servicebus"));
  }

  @Test
  void toBuilderKeepsEveryValue() {
    ServiceBusPublisherOptions options =
        valid().entity("orders").sessionEnabled(true).maxRetries(1).build();

    assertThat(options.toBuilder().build()).hasToString(options.toString());
  }
}
