package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Counts in the text output agree with their number. */
class TextTest {

  @Test
  void aCountIsSingularForOneOnly() {
    assertThat(Text.count(0, "aggregate")).isEqualTo("0 aggregates");
    assertThat(Text.count(1, "aggregate")).isEqualTo("1 aggregate");
    assertThat(Text.count(2, "aggregate")).isEqualTo("2 aggregates");
  }

  @Test
  void theVerbAgreesWithTheCountOfDeadLetters() {
    assertThat(Text.deadLettersMatch(0)).isEqualTo("0 dead letters match");
    assertThat(Text.deadLettersMatch(1)).isEqualTo("1 dead letter matches");
    assertThat(Text.deadLettersMatch(3)).isEqualTo("3 dead letters match");
  }
}
