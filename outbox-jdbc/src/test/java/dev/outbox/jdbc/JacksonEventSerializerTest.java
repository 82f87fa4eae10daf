package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JacksonEventSerializerTest {

  record Shipped(long orderId, Instant at, Optional<String> carrier) implements DomainEvent {}

  record Empty() implements DomainEvent {}

  /** A value with private fields and no getters: Jackson sees no properties in it. */
  static final class Money {
    private final long cents;
    private final String currency;

    Money(long cents, String currency) {
      this.cents = cents;
      this.currency = currency;
    }

    @Override
    public String toString() {
      return cents + " " + currency;
    }
  }

  record PriceChanged(String id, Money price) implements DomainEvent {}

  record Broken(String value) implements DomainEvent {
    @Override
    public String value() {
      throw new IllegalStateException("nope");
    }
  }

  /** An accessor failing with a message that already ends in a period. */
  record BrokenSentence(String value) implements DomainEvent {
    @Override
    public String value() {
      throw new IllegalStateException("The value is gone.");
    }
  }

  /** An event class with private fields and no getters: Jackson sees no properties in it. */
  static final class Opaque implements DomainEvent {
    private final long cents = 5;

    @Override
    public String toString() {
      return "Opaque " + cents;
    }
  }

  @Test
  void defaultMapperWritesIsoTimesOptionalsAndEmptyEvents() {
    JacksonEventSerializer serializer = new JacksonEventSerializer();
    assertThat(
            serializer.serialize(
                new Shipped(7, Instant.parse("2026-01-02T03:04:05Z"), Optional.of("ups"))))
        .isEqualTo("{\"orderId\":7,\"at\":\"2026-01-02T03:04:05Z\",\"carrier\":\"ups\"}");
    assertThat(serializer.serialize(new Empty())).isEqualTo("{}");
    assertThat(serializer.contentType()).isEqualTo("application/json");
  }

  @Test
  void applicationMapperIsUsed() {
    JacksonEventSerializer serializer =
        new JacksonEventSerializer(
            JacksonEventSerializer.defaultMapper()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE));
    assertThat(serializer.serialize(new Shipped(7, null, Optional.empty())))
        .isEqualTo("{\"order_id\":7,\"at\":null,\"carrier\":null}");
  }

  @Test
  void failureNamesTheEventClass() {
    assertThatThrownBy(() -> new JacksonEventSerializer().serialize(new Broken("x")))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining(Broken.class.getName())
        .hasMessageContaining("nope");
  }

  @Test
  void aValueWithoutPropertiesFailsInsteadOfBeingWrittenAsAnEmptyObject() {
    assertThatThrownBy(
            () ->
                new JacksonEventSerializer()
                    .serialize(new PriceChanged("p-1", new Money(5, "EUR"))))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining(PriceChanged.class.getName())
        .hasMessageContaining("no properties in " + Money.class.getName())
        .hasMessageContaining("[\"price\"]")
        .hasMessageNotContaining("disable");
  }

  @Test
  void anEventWithoutPropertiesIsNamedWithoutALocation() {
    assertThatThrownBy(() -> new JacksonEventSerializer().serialize(new Opaque()))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "Jackson cannot serialize "
                + Opaque.class.getName()
                + ": it sees no properties in "
                + Opaque.class.getName()
                + ". Give that class getters or @JsonProperty fields, or register a serializer for"
                + " it in the ObjectMapper; writing it as {} would lose its data.");
  }

  @Test
  void aNestedValueWithoutPropertiesIsNamedWithItsLocation() {
    assertThatThrownBy(
            () ->
                new JacksonEventSerializer()
                    .serialize(new PriceChanged("p-1", new Money(5, "EUR"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "Jackson cannot serialize "
                + PriceChanged.class.getName()
                + ": it sees no properties in "
                + Money.class.getName()
                + " at "
                + PriceChanged.class.getName()
                + "[\"price\"]. Give that class getters or @JsonProperty fields, or register a"
                + " serializer for it in the ObjectMapper; writing it as {} would lose its data.");
  }

  @Test
  void jacksonsOwnMessageEndsInOnePeriod() {
    assertThatThrownBy(() -> new JacksonEventSerializer().serialize(new Broken("x")))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "Jackson cannot serialize "
                + Broken.class.getName()
                + " at "
                + Broken.class.getName()
                + "[\"value\"]: nope.");
    assertThatThrownBy(() -> new JacksonEventSerializer().serialize(new BrokenSentence("x")))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "Jackson cannot serialize "
                + BrokenSentence.class.getName()
                + " at "
                + BrokenSentence.class.getName()
                + "[\"value\"]: The value is gone.");
  }
}
