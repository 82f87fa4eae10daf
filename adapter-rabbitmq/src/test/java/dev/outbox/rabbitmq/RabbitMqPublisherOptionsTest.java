package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxMessage;
import dev.outbox.testkit.DocumentedKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RabbitMqPublisherOptionsTest {

  private static final String SECRET = "s3cr3t-Pa55";

  @Test
  void defaultsConnectAsGuestToLocalhostAndRouteByEventType() {
    RabbitMqPublisherOptions options = RabbitMqPublisherOptions.defaults();

    assertThat(options.host()).isEqualTo("localhost");
    assertThat(options.port()).isEqualTo(5672);
    assertThat(options.virtualHost()).isEqualTo("/");
    assertThat(options.username()).isEqualTo("guest");
    assertThat(options.tls()).isFalse();
    assertThat(options.exchange()).isEqualTo(RabbitMqPublisherOptions.DEFAULT_EXCHANGE);
    assertThat(options.declareExchange()).isFalse();
    assertThat(options.routingKey().apply(message())).isEqualTo("order.placed");
    assertThat(options.recoveryInterval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void uriSetsHostPortVirtualHostCredentialsAndTls() {
    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.builder()
            .uri("amqps://orders:" + SECRET + "@rabbit.internal:5999/prod%2Feu")
            .build();

    assertThat(options.tls()).isTrue();
    assertThat(options.host()).isEqualTo("rabbit.internal");
    assertThat(options.port()).isEqualTo(5999);
    assertThat(options.virtualHost()).isEqualTo("prod/eu");
    assertThat(options.username()).isEqualTo("orders");
    assertThat(options.password()).isEqualTo(SECRET);
  }

  @Test
  void amqpsUriWithoutPortUsesTheTlsPort() {
    assertThat(RabbitMqPublisherOptions.builder().uri("amqps://rabbit").build().port())
        .isEqualTo(5671);
    assertThat(RabbitMqPublisherOptions.builder().uri("amqp://rabbit/").build().virtualHost())
        .isEqualTo("/");
  }

  @Test
  void passwordNeverAppearsInToStringNotEvenFromAUri() {
    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.builder().uri("amqp://orders:" + SECRET + "@rabbit/").build();

    assertThat(options.toString()).doesNotContain(SECRET).contains("orders:****@rabbit:5672");
    assertThat(new RabbitMqEventPublisher(options).toString()).doesNotContain(SECRET);
    assertThat(new RabbitMqOutboxModule(options).toString()).doesNotContain(SECRET);
  }

  @Test
  void badUriIsRejectedWithThePasswordMasked() {
    assertThatThrownBy(
            () -> RabbitMqPublisherOptions.builder().uri("http://orders:" + SECRET + "@rabbit"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri must start with amqp:// or amqps://")
        .hasMessageContaining("http://orders:****@rabbit")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(
            () -> RabbitMqPublisherOptions.builder().uri("amqp://u:" + SECRET + "@rabbit/a?x=1"))
        .hasMessageContaining("query parameters")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(
            () -> RabbitMqPublisherOptions.builder().uri("amqp://u:" + SECRET + "@rab bit/"))
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void settersNameTheFieldAndTheBadValue() {
    RabbitMqPublisherOptions.Builder builder = RabbitMqPublisherOptions.builder();
    assertThatThrownBy(() -> builder.port(0))
        .hasMessage("port must be between 1 and 65535, but was 0");
    assertThatThrownBy(() -> builder.host(" ")).hasMessage("host must not be blank, but was \" \"");
    assertThatThrownBy(() -> builder.connectionTimeout(Duration.ZERO))
        .hasMessage("connectionTimeout must be > 0, but was PT0S");
    assertThatThrownBy(() -> builder.heartbeat(Duration.ofSeconds(-1)))
        .hasMessage("heartbeat must be >= 0, but was PT-1S");
    assertThatThrownBy(() -> builder.exchange("x".repeat(256)))
        .hasMessageStartingWith("exchange must be a name of at most 255 characters");
    assertThatThrownBy(() -> builder.routingKeyTemplate("{aggregate}.{eventType}"))
        .hasMessageContaining("routingKey may use")
        .hasMessageContaining("{aggregate}.{eventType}");
    assertThatThrownBy(() -> builder.appId("")).hasMessageStartingWith("appId must be");
    assertThatThrownBy(() -> builder.appId("a".repeat(256)))
        .hasMessageStartingWith("appId must be null or 1 to 255 bytes");
  }

  @Test
  void routingKeyTemplateFillsEventAndAggregateFields() {
    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.builder()
            .routingKeyTemplate("{aggregateType}.{eventType}.{aggregateId}")
            .build();

    assertThat(options.routingKey().apply(message())).isEqualTo("order.order.placed.o-1");
  }

  @Test
  void toBuilderKeepsEveryValue() {
    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.builder()
            .uri("amqps://u:p@h:1234/v")
            .exchange("e")
            .exchangeType("direct")
            .exchangeDurable(false)
            .declareExchange(true)
            .appId("app")
            .connectionName("c")
            .heartbeat(Duration.ZERO)
            .build();

    assertThat(options.toBuilder().build()).usingRecursiveComparison().isEqualTo(options);
  }

  @Test
  void fromPropertiesReadsPrefixedKeysWithUriFirstAndSingleKeysOverriding() {
    Properties properties = new Properties();
    properties.setProperty("outbox.rabbitmq.uri", "amqp://orders:" + SECRET + "@rabbit/prod");
    properties.setProperty("outbox.rabbitmq.port", "5673");
    properties.setProperty("outbox.rabbitmq.exchange", "orders.events");
    properties.setProperty("outbox.rabbitmq.declare-exchange", "true");
    properties.setProperty("outbox.rabbitmq.routing-key", "{aggregateType}.{eventType}");
    properties.setProperty("outbox.rabbitmq.connection-timeout", "2s");
    properties.setProperty("outbox.rabbitmq.recovery-interval", "PT0.5S");
    properties.setProperty("unrelated.key", "ignored");

    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.fromProperties(properties, "outbox.rabbitmq");

    assertThat(options.host()).isEqualTo("rabbit");
    assertThat(options.port()).isEqualTo(5673);
    assertThat(options.virtualHost()).isEqualTo("prod");
    assertThat(options.password()).isEqualTo(SECRET);
    assertThat(options.exchange()).isEqualTo("orders.events");
    assertThat(options.declareExchange()).isTrue();
    assertThat(options.routingKey().apply(message())).isEqualTo("order.order.placed");
    assertThat(options.connectionTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.recoveryInterval()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void fromMapReadsEnvironmentStyleNames() {
    RabbitMqPublisherOptions options =
        RabbitMqPublisherOptions.fromMap(
            Map.of(
                "OUTBOX_RABBITMQ_HOST", "rabbit",
                "OUTBOX_RABBITMQ_VIRTUAL_HOST", "prod",
                "OUTBOX_RABBITMQ_PASSWORD", SECRET,
                "OUTBOX_RABBITMQ_TLS", "true",
                "PATH", "/usr/bin"),
            "OUTBOX_RABBITMQ");

    assertThat(options.host()).isEqualTo("rabbit");
    assertThat(options.virtualHost()).isEqualTo("prod");
    assertThat(options.password()).isEqualTo(SECRET);
    assertThat(options.port()).isEqualTo(5671);
  }

  @Test
  void fromPropertiesRejectsUnknownKeysAndBadValuesNamingTheKey() {
    assertThatThrownBy(() -> RabbitMqPublisherOptions.fromMap(Map.of("rmq.hots", "x"), "rmq"))
        .hasMessageStartingWith("Unknown RabbitMQ publisher option rmq.hots; the known keys are")
        .hasMessageContaining("rmq.host, rmq.port");
    assertThatThrownBy(() -> RabbitMqPublisherOptions.fromMap(Map.of("rmq.port", "abc"), "rmq"))
        .hasMessage("rmq.port: expected an integer, but was \"abc\"");
    assertThatThrownBy(() -> RabbitMqPublisherOptions.fromMap(Map.of("rmq.tls", "yes"), "rmq"))
        .hasMessage("rmq.tls: expected true or false, but was \"yes\"");
    assertThatThrownBy(
            () -> RabbitMqPublisherOptions.fromMap(Map.of("rmq.heartbeat", "soon"), "rmq"))
        .hasMessageContaining("rmq.heartbeat: expected a duration");
  }

  @Test
  void theReadmeListsExactlyTheKeys() {
    DocumentedKeys.assertListed(
        Path.of("README.md"), "outbox.rabbitmq.", RabbitMqPublisherOptions.keys("outbox.rabbitmq"));
  }

  @Test
  void badSecretValuesFromPropertiesAreNeverEchoed() {
    assertThatThrownBy(
            () ->
                RabbitMqPublisherOptions.fromMap(
                    Map.of("rmq.uri", "amqp://u:" + SECRET + "@h/a/b"), "rmq"))
        .hasMessageStartingWith("rmq.uri: uri must have at most one path segment")
        .hasMessageNotContaining(SECRET)
        .satisfies(e -> assertThat(e.getCause()).isNull());
  }

  private static OutboxMessage message() {
    Instant now = Instant.now();
    return new OutboxMessage(
        UUID.randomUUID(),
        1,
        "order",
        "o-1",
        "order.placed",
        "application/json",
        "{}",
        Map.of(),
        now,
        now,
        0);
  }
}
