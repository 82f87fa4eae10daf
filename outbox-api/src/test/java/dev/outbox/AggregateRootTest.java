package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AggregateRootTest {

  @EventType("thing.renamed")
  record Renamed(String name) implements DomainEvent {}

  record Created(String name) implements DomainEvent {
    @Override
    public Map<String, String> headers() {
      return Map.of("tenant", "t1");
    }
  }

  static final class Thing extends AggregateRoot {
    void create() {
      registerEvent(new Created("a"));
    }

    void rename(String name) {
      registerEvent(new Renamed(name));
    }
  }

  @Test
  void keepsEventsInRegistrationOrderUntilCleared() {
    Thing thing = new Thing();
    assertThat(thing.domainEvents()).isEmpty();
    thing.create();
    thing.rename("b");
    assertThat(thing.domainEvents()).containsExactly(new Created("a"), new Renamed("b"));
    thing.clearDomainEvents();
    assertThat(thing.domainEvents()).isEmpty();
  }

  @Test
  void viewIsReadOnly() {
    Thing thing = new Thing();
    thing.create();
    assertThatThrownBy(() -> thing.domainEvents().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void eventTypeComesFromAnnotationElseSimpleClassName() {
    assertThat(new Renamed("x").eventType()).isEqualTo("thing.renamed");
    assertThat(new Created("x").eventType()).isEqualTo("Created");
    assertThat(new Created("x").headers()).containsEntry("tenant", "t1");
    assertThat(new Renamed("x").headers()).isEmpty();
    assertThat(new Renamed("x").occurredAt()).isNull();
  }

  @Test
  void aggregateTypeDefaultsToSimpleClassNameAndIdToTheEntityIdentifier() {
    Thing thing = new Thing();
    assertThat(thing.aggregateType()).isEqualTo("Thing");
    assertThat(thing.aggregateId()).isNull();
  }

  @Test
  void nullEventIsRefused() {
    Thing thing = new Thing();
    assertThatThrownBy(() -> thing.registerEvent(null)).isInstanceOf(NullPointerException.class);
  }
}
