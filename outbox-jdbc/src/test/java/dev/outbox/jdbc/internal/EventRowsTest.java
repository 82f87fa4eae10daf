package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.jdbc.JacksonEventSerializer;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventRowsTest {

  /** An event class with a private field and no getters: Jackson sees no properties in it. */
  static final class Opaque implements DomainEvent {
    private final long cents = 5;

    @Override
    public String toString() {
      return "Opaque " + cents;
    }
  }

  @Test
  void aSerializerMessageEndingInAPeriodIsNotFollowedByAnother() {
    EventRows rows = new EventRows(new JacksonEventSerializer(), List.of(), Clock.systemUTC());

    assertThatThrownBy(() -> rows.row("Payment", "p-1", new Opaque(), "Nothing was written."))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "Cannot serialize event "
                + Opaque.class.getName()
                + " of aggregate Payment/p-1: Jackson cannot serialize "
                + Opaque.class.getName()
                + ": it sees no properties in "
                + Opaque.class.getName()
                + ". Give that class getters or @JsonProperty fields, or register a serializer for"
                + " it in the ObjectMapper; writing it as {} would lose its data. Nothing was"
                + " written. Make the event serializable by JacksonEventSerializer.");
  }
}
