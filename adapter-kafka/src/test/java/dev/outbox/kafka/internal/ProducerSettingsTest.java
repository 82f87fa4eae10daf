package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outbox.kafka.KafkaPublisherOptions;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

  @Test
  void producerIsIdempotentWithAcksAllAndBoundedWaits() {
    Map<String, Object> config =
        ProducerSettings.producerConfig(
            KafkaPublisherOptions.builder()
                .bootstrapServers("k:9092")
                .clientId("me")
                .metadataTimeout(Duration.ofMillis(1500))
                .build());

    assertThat(config)
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
        .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092")
        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "me")
        .containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1500")
        .containsEntry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000")
        .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000")
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
  }

  @Test
  void passThroughPropertiesOverrideTheAdaptersDefaults() {
    Map<String, Object> config =
        ProducerSettings.producerConfig(
            KafkaPublisherOptions.builder()
                .producerProperty("linger.ms", "50")
                .producerProperty("compression.type", "zstd")
                .build());

    assertThat(config)
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "50")
        .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
  }

  @Test
  void kafkaAcceptsTheDefaultConfiguration() {
    Map<String, Object> config = ProducerSettings.producerConfig(KafkaPublisherOptions.defaults());

    assertThatCode(() -> new ProducerConfig(config)).doesNotThrowAnyException();
  }

  @Test
  void secretsAreRecognizedByName() {
    assertThat(ProducerSettings.isSecret("sasl.jaas.config")).isTrue();
    assertThat(ProducerSettings.isSecret("ssl.truststore.password")).isTrue();
    assertThat(ProducerSettings.isSecret("sasl.oauthbearer.client.credentials.client.secret"))
        .isTrue();
    assertThat(ProducerSettings.isSecret("compression.type")).isFalse();
    assertThat(ProducerSettings.masked(Map.of("ssl.key.password", "p", "linger.ms", "5")))
        .containsEntry("ssl.key.password", "****")
        .containsEntry("linger.ms", "5");
  }

  @Test
  void saslUserIsReadFromTheJaasConfigWithoutItsPassword() {
    Map<String, Object> config =
        ProducerSettings.producerConfig(
            KafkaPublisherOptions.builder()
                .producerProperty(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"app\" password=\"s3cret\";")
                .build());

    assertThat(ProducerSettings.saslUser(config)).isEqualTo("app");
  }

  @Test
  void noJaasConfigMeansNoSaslUser() {
    assertThat(
            ProducerSettings.saslUser(
                ProducerSettings.producerConfig(KafkaPublisherOptions.defaults())))
        .isNull();
  }

  @Test
  void deliveryTimeoutIsTheAdaptersDefaultUnlessSet() {
    assertThat(ProducerSettings.deliveryTimeout(Map.of())).isEqualTo(Duration.ofSeconds(30));
    assertThat(ProducerSettings.deliveryTimeout(Map.of("delivery.timeout.ms", "3000")))
        .isEqualTo(Duration.ofSeconds(3));
  }
}
