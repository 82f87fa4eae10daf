package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.internal.Connector;
import dev.outbox.testkit.DocumentedKeys;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NatsPublisherOptionsTest {

  private static OutboxMessage message(String aggregateType, String eventType) {
    Instant now = Instant.now();
    return new OutboxMessage(
        UUID.randomUUID(),
        1,
        aggregateType,
        "42",
        eventType,
        OutboxMessage.JSON,
        "{}",
        Map.of(),
        now,
        now,
        0);
  }

  @Test
  void defaultsConnectToLocalhostAndCreateNoStream() {
    NatsPublisherOptions options = NatsPublisherOptions.defaults();

    assertThat(options.servers()).containsExactly("nats://localhost:4222");
    assertThat(options.subjectPrefix()).isEqualTo("events");
    assertThat(options.stream().create()).isFalse();
    assertThat(options.stream().name()).isEqualTo(NatsStreamOptions.DEFAULT_NAME);
    assertThat(options.stream().duplicateWindow()).isEqualTo(Duration.ofMinutes(2));
    assertThat(options.streamSubjects()).containsExactly("events.>");
  }

  @Test
  void defaultSubjectIsPrefixAggregateTypeAndEventType() {
    NatsPublisherOptions options = NatsPublisherOptions.builder().subjectPrefix("acme.out").build();

    assertThat(options.subjectFunction().apply(message("Order", "order.placed")))
        .isEqualTo("acme.out.Order.order.placed");
    assertThat(options.streamSubjects()).containsExactly("acme.out.>");
  }

  @Test
  void defaultSubjectReplacesCharactersASubjectCannotHold() {
    String subject =
        NatsPublisherOptions.defaults().subjectFunction().apply(message("Big Order", "a..*>"));

    assertThat(subject).isEqualTo("events.Big_Order.a._.__");
  }

  @Test
  void customSubjectFunctionReplacesTheDefault() {
    NatsPublisherOptions options =
        NatsPublisherOptions.builder().subjectFunction(m -> "x." + m.aggregateId()).build();

    assertThat(options.subjectFunction().apply(message("Order", "placed"))).isEqualTo("x.42");
  }

  @Test
  void settersRejectBadValuesNamingFieldAndValue() {
    NatsPublisherOptions.Builder b = NatsPublisherOptions.builder();

    assertThatThrownBy(() -> b.subjectPrefix("events.*"))
        .hasMessageContaining("subjectPrefix")
        .hasMessageContaining("\"events.*\"");
    assertThatThrownBy(() -> b.subjectPrefix("a..b")).hasMessageContaining("subjectPrefix");
    assertThatThrownBy(() -> b.servers(List.of())).hasMessageContaining("servers");
    assertThatThrownBy(() -> b.servers(List.of("nats://a b"))).hasMessageContaining("servers");
    assertThatThrownBy(() -> b.connectionTimeout(Duration.ZERO))
        .hasMessage("connectionTimeout must be > 0, but was PT0S");
    assertThatThrownBy(() -> b.reconnectWait(Duration.ofSeconds(-1)))
        .hasMessage("reconnectWait must be > 0, but was PT-1S");
    assertThatThrownBy(() -> b.connectionName(" ")).hasMessageContaining("connectionName");
    assertThatThrownBy(() -> NatsStreamOptions.builder().name("a.b"))
        .hasMessageContaining("stream.name")
        .hasMessageContaining("\"a.b\"");
    assertThatThrownBy(() -> NatsStreamOptions.builder().replicas(0))
        .hasMessage("stream.replicas must be between 1 and 5, but was 0");
    assertThatThrownBy(() -> NatsStreamOptions.builder().subjects(List.of("a.>.b")))
        .hasMessageContaining("stream.subjects");
    assertThatThrownBy(() -> NatsStreamOptions.builder().duplicateWindow(Duration.ZERO))
        .hasMessageContaining("stream.duplicateWindow");
  }

  @Test
  void moreThanOneAuthenticationMethodIsRejected() {
    NatsPublisherOptions.Builder b =
        NatsPublisherOptions.builder().token("t0ken").userPassword("app", "pw");

    assertThatThrownBy(b::build)
        .hasMessage("set one of userPassword, token or credentialsFile, but 2 were set");
  }

  @Test
  void toBuilderKeepsEveryValue() {
    NatsPublisherOptions original =
        NatsPublisherOptions.builder()
            .servers(List.of("nats://a:4222", "nats://b:4222"))
            .token("secret-token")
            .truststore("/etc/trust.jks", "changeit")
            .connectionName("orders")
            .connectionTimeout(Duration.ofSeconds(3))
            .reconnectWait(Duration.ofMillis(250))
            .subjectPrefix("orders")
            .stream(NatsStreamOptions.builder().create(true).name("ORDERS").build())
            .build();

    NatsPublisherOptions copy = original.toBuilder().build();

    assertThat(copy.toString()).isEqualTo(original.toString());
    assertThat(copy.token()).contains("secret-token");
    assertThat(copy.truststorePassword()).contains("changeit");
  }

  @Test
  void fromPropertiesReadsEveryKeyUnderThePrefix() {
    Properties p = new Properties();
    p.setProperty("outbox.nats.servers", "nats://a:4222, nats://b:4222");
    p.setProperty("outbox.nats.username", "app");
    p.setProperty("outbox.nats.password", "pw");
    p.setProperty("outbox.nats.tls", "true");
    p.setProperty("outbox.nats.connection-name", "orders");
    p.setProperty("outbox.nats.connection-timeout", "3s");
    p.setProperty("outbox.nats.reconnect-wait", "PT0.5S");
    p.setProperty("outbox.nats.subject-prefix", "orders");
    p.setProperty("outbox.nats.stream.create", "true");
    p.setProperty("outbox.nats.stream.name", "ORDERS");
    p.setProperty("outbox.nats.stream.subjects", "orders.>,audit.>");
    p.setProperty("outbox.nats.stream.storage", "memory");
    p.setProperty("outbox.nats.stream.duplicate-window", "10m");
    p.setProperty("outbox.nats.stream.replicas", "3");
    p.setProperty("other.key", "ignored");

    NatsPublisherOptions options = NatsPublisherOptions.fromProperties(p, "outbox.nats");

    assertThat(options.servers()).containsExactly("nats://a:4222", "nats://b:4222");
    assertThat(options.username()).contains("app");
    assertThat(options.password()).contains("pw");
    assertThat(options.tls()).isTrue();
    assertThat(options.connectionName()).isEqualTo("orders");
    assertThat(options.connectionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(options.reconnectWait()).isEqualTo(Duration.ofMillis(500));
    assertThat(options.subjectPrefix()).isEqualTo("orders");
    NatsStreamOptions stream = options.stream();
    assertThat(stream.create()).isTrue();
    assertThat(stream.name()).isEqualTo("ORDERS");
    assertThat(stream.subjects()).containsExactly("orders.>", "audit.>");
    assertThat(stream.storage()).isEqualTo(NatsStreamOptions.Storage.MEMORY);
    assertThat(stream.duplicateWindow()).isEqualTo(Duration.ofMinutes(10));
    assertThat(stream.replicas()).isEqualTo(3);
  }

  @Test
  void fromMapWithoutKeysGivesTheDefaults() {
    NatsPublisherOptions options = NatsPublisherOptions.fromMap(Map.of("x", "y"), "outbox.nats.");

    assertThat(options.toString()).isEqualTo(NatsPublisherOptions.defaults().toString());
  }

  @Test
  void fromMapReadsTheEnvironmentFormOfTheSameKeys() {
    NatsPublisherOptions options =
        NatsPublisherOptions.fromMap(
            Map.of(
                "OUTBOX_NATS_SERVERS", "nats://a:4222,nats://b:4222",
                "OUTBOX_NATS_TOKEN", "t0ken",
                "OUTBOX_NATS_STREAM_NAME", "ORDERS",
                "OUTBOX_NATS_STREAM_DUPLICATE_WINDOW", "10m",
                "PATH", "/usr/bin"),
            "OUTBOX_NATS_");

    assertThat(options.servers()).containsExactly("nats://a:4222", "nats://b:4222");
    assertThat(options.token()).contains("t0ken");
    assertThat(options.stream().name()).isEqualTo("ORDERS");
    assertThat(options.stream().duplicateWindow()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void fromMapRejectsUnknownKeysAndBadValuesNamingTheKey() {
    assertThatThrownBy(
            () -> NatsPublisherOptions.fromMap(Map.of("nats.sevrers", "nats://a:4222"), "nats"))
        .hasMessageStartingWith("Unknown NATS publisher option nats.sevrers; the known keys are")
        .hasMessageContaining("nats.servers");
    assertThatThrownBy(() -> NatsPublisherOptions.fromMap(Map.of("nats.tls", "yes"), "nats"))
        .hasMessage("nats.tls: expected true or false, but was \"yes\"");
    assertThatThrownBy(
            () -> NatsPublisherOptions.fromMap(Map.of("nats.reconnect-wait", "soon"), "nats"))
        .hasMessageContaining("nats.reconnect-wait")
        .hasMessageContaining("\"soon\"");
    assertThatThrownBy(
            () -> NatsPublisherOptions.fromMap(Map.of("nats.stream.storage", "disk"), "nats"))
        .hasMessage("nats.stream.storage: expected one of file, memory, but was \"disk\"");
    assertThatThrownBy(
            () -> NatsPublisherOptions.fromMap(Map.of("nats.stream.replicas", "two"), "nats"))
        .hasMessageContaining("nats.stream.replicas");
  }

  @Test
  void theReadmeListsExactlyTheKeys() {
    DocumentedKeys.assertListed(
        Path.of("README.md"), "outbox.nats.", NatsPublisherOptions.keys("outbox.nats"));
  }

  @Test
  void toStringNeverShowsSecrets() {
    List<NatsPublisherOptions> all =
        List.of(
            NatsPublisherOptions.builder()
                .servers(List.of("nats://admin:s3cr3t-pw@host:4222", "tok3n-value@other:4222"))
                .userPassword("admin-user", "s3cr3t-pw")
                .truststore("/etc/trust.jks", "trust-pass")
                .build(),
            NatsPublisherOptions.builder().token("tok3n-value").build(),
            NatsPublisherOptions.builder().credentialsFile("/secrets/app.creds").build(),
            NatsPublisherOptions.fromMap(
                Map.of("n.password", "s3cr3t-pw", "n.username", "admin-user"), "n"));

    for (NatsPublisherOptions options : all) {
      assertThat(options.toString())
          .doesNotContain("s3cr3t-pw", "tok3n-value", "trust-pass", "app.creds", "admin");
    }
    assertThat(all.get(0).toString())
        .contains("nats://****@host:4222", "****@other:4222", "user-password(****)");
    assertThat(all.get(1).toString()).contains("token(****)");
    assertThat(all.get(2).toString()).contains("credentials-file(****)");
  }

  @Test
  void rejectedSecretValuesAreNotEchoedInErrors() {
    assertThatThrownBy(() -> NatsPublisherOptions.builder().servers(List.of("nats://u:pw@a b")))
        .message()
        .doesNotContain("pw");
  }

  @Test
  void jnatsOptionsCarryServersAuthAndReconnectForever() {
    NatsPublisherOptions options =
        NatsPublisherOptions.builder()
            .servers(List.of("nats://a:4222", "nats://b:4222"))
            .userPassword("app", "pw")
            .connectionTimeout(Duration.ofSeconds(3))
            .reconnectWait(Duration.ofMillis(250))
            .customizer(b -> b.reconnectBufferSize(1234))
            .build();

    Options nats = Connector.natsOptions(options);

    assertThat(nats.getServers()).extracting(Object::toString).hasSize(2);
    assertThat(nats.getMaxReconnect()).isEqualTo(-1);
    assertThat(nats.getConnectionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(nats.getReconnectWait()).isEqualTo(Duration.ofMillis(250));
    assertThat(new String(nats.getUsernameChars())).isEqualTo("app");
    assertThat(nats.getReconnectBufferSize()).isEqualTo(1234);
    assertThat(nats.getConnectionName()).isEqualTo("outbox-publisher");
  }
}
