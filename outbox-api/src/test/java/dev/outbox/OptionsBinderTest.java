package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class OptionsBinderTest {

  enum Mode {
    POLLING,
    CHANGE_CAPTURE
  }

  /** A builder that records what was set. */
  static final class Settings {
    final Map<String, Object> set = new LinkedHashMap<>();

    void put(String name, Object value) {
      if ("bad".equals(value)) {
        throw new IllegalArgumentException(name + " must not be bad");
      }
      set.put(name, value);
    }
  }

  private static final OptionsBinder<Settings> BINDER =
      OptionsBinder.<Settings>of("test")
          .string("bootstrap-servers", (b, v) -> b.put("servers", v))
          .secret("password", (b, v) -> b.put("password", v))
          .duration("close-timeout", (b, v) -> b.put("close", v))
          .integer("batch-size", (b, v) -> b.put("batch", v))
          .bool("enabled", (b, v) -> b.put("enabled", v))
          .enumeration("mode", Mode.class, (b, v) -> b.put("mode", v))
          .section("producer", (b, v) -> b.put("producer", v))
          .ignoring("kafka");

  private static Map<String, Object> bind(Map<String, String> values, String prefix) {
    return BINDER.bind(values, prefix, new Settings()).set;
  }

  @Test
  void theDottedKeysAndTheEnvironmentFormSetTheSameOptions() {
    Map<String, Object> dotted =
        bind(
            Map.of(
                "outbox.test.bootstrap-servers", "a:1",
                "outbox.test.close-timeout", "500ms",
                "outbox.test.batch-size", "20",
                "outbox.test.enabled", "TRUE",
                "outbox.test.mode", "change-capture",
                "outbox.test.producer.linger.ms", "5",
                "other.key", "ignored"),
            "outbox.test");
    Map<String, Object> environment =
        bind(
            Map.of(
                "OUTBOX_TEST_BOOTSTRAP_SERVERS", "a:1",
                "OUTBOX_TEST_CLOSE_TIMEOUT", "PT0.5S",
                "OUTBOX_TEST_BATCH_SIZE", "20",
                "OUTBOX_TEST_ENABLED", "true",
                "OUTBOX_TEST_MODE", "CHANGE_CAPTURE",
                "OUTBOX_TEST_PRODUCER_LINGER_MS", "5",
                "PATH", "/usr/bin"),
            "OUTBOX_TEST_");

    assertThat(dotted)
        .containsEntry("servers", "a:1")
        .containsEntry("close", Duration.ofMillis(500))
        .containsEntry("batch", 20)
        .containsEntry("enabled", true)
        .containsEntry("mode", Mode.CHANGE_CAPTURE)
        .containsEntry("producer", Map.of("linger.ms", "5"));
    assertThat(environment).isEqualTo(dotted);
  }

  @Test
  void propertiesAndAPrefixInEitherFormWork() {
    Properties properties = new Properties();
    properties.setProperty("outbox.test.bootstrap-servers", "b:2");

    assertThat(BINDER.bind(properties, "outbox.test.", new Settings()).set)
        .containsEntry("servers", "b:2");
    assertThat(bind(Map.of("outbox.test.bootstrap-servers", "b:2"), "OUTBOX_TEST"))
        .containsEntry("servers", "b:2");
  }

  @Test
  void durationsTakeEveryDocumentedForm() {
    assertThat(OptionsBinder.duration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(OptionsBinder.duration("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(OptionsBinder.duration("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(OptionsBinder.duration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(OptionsBinder.duration("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(OptionsBinder.duration("pt5s")).isEqualTo(Duration.ofSeconds(5));
    assertThatThrownBy(() -> bind(Map.of("outbox.test.close-timeout", "500"), "outbox.test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "outbox.test.close-timeout: expected a duration such as 500ms, 5s, 2m, 1h, 1d or PT5S,"
                + " but was \"500\"");
  }

  @Test
  void anUnknownKeyUnderThePrefixNamesItAndListsTheKnownOnes() {
    assertThatThrownBy(() -> bind(Map.of("OUTBOX_TEST_BOOTSTRAP_SERVER", "a:1"), "OUTBOX_TEST_"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Unknown test option OUTBOX_TEST_BOOTSTRAP_SERVER; the known keys are"
                + " outbox.test.bootstrap-servers, outbox.test.password, outbox.test.close-timeout,"
                + " outbox.test.batch-size, outbox.test.enabled, outbox.test.mode,"
                + " outbox.test.producer.*, each also in environment form"
                + " (OUTBOX_TEST_BOOTSTRAP_SERVERS, ...)");
  }

  @Test
  void keysOfAnIgnoredSectionAreNeitherBoundNorUnknown() {
    assertThat(bind(Map.of("outbox.test.kafka.bootstrap-servers", "x"), "outbox.test")).isEmpty();
  }

  @Test
  void anOptionGivenInBothFormsIsAnError() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of("outbox.test.enabled", "true", "OUTBOX_TEST_ENABLED", "false"),
                    "outbox.test"))
        .hasMessage("test option enabled is given twice: OUTBOX_TEST_ENABLED, outbox.test.enabled");
  }

  @Test
  void aBadValueNamesTheKeyAndASecretsValueIsNeverShown() {
    assertThatThrownBy(() -> bind(Map.of("outbox.test.batch-size", "many"), "outbox.test"))
        .hasMessage("outbox.test.batch-size: expected an integer, but was \"many\"");
    assertThatThrownBy(() -> bind(Map.of("outbox.test.bootstrap-servers", "bad"), "outbox.test"))
        .hasMessage("outbox.test.bootstrap-servers: servers must not be bad");
    assertThatThrownBy(() -> bind(Map.of("outbox.test.password", "bad"), "outbox.test"))
        .hasMessage("outbox.test.password: password must not be **** (the value is a secret)");
    assertThatThrownBy(() -> bind(Map.of("outbox.test.mode", "push"), "outbox.test"))
        .hasMessage("outbox.test.mode: expected one of polling, change-capture, but was \"push\"");
  }

  @Test
  void aNameThatIsNotKebabCaseOrDeclaredTwiceIsRefused() {
    assertThatThrownBy(
            () -> OptionsBinder.<Settings>of("x").string("bootstrapServers", (b, v) -> {}))
        .hasMessageContaining("kebab-case");
    assertThatThrownBy(
            () ->
                OptionsBinder.<Settings>of("x")
                    .string("a-b", (b, v) -> {})
                    .duration("a-b", (b, v) -> {}))
        .hasMessage("x option a-b is declared twice");
  }
}
