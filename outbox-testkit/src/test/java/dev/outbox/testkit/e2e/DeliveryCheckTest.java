package dev.outbox.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeliveryCheckTest {

  private final DeliveryCheck check = DeliveryCheck.expecting(expected());

  @Test
  void everyEventOnceInOrderPasses() {
    deliverAll();

    assertThat(check.isComplete()).isTrue();
    check.assertDeliveredInOrderExactlyOnce();
    assertThat(check.summary())
        .isEqualTo(
            "7 of 7 events of 2 aggregates received in 7 deliveries: 0 missing, 0 duplicates,"
                + " 0 out of order, 0 unexpected");
  }

  @Test
  void duplicateIsCountedAndToleratedOnlyByAtLeastOnce() {
    deliverAll();
    check.record("a", 2, "a2");

    assertThat(check.duplicates()).isOne();
    assertThat(check.deliveries()).as("deliveries, the duplicate included").isEqualTo(8);
    check.assertDeliveredInOrder();
    assertThatThrownBy(check::assertDeliveredInOrderExactlyOnce)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("1 duplicates")
        .hasMessageContaining("a: missing [], duplicates [2]");
  }

  @Test
  void sameEventUnderAnotherMessageIdIsADuplicate() {
    deliverAll();
    check.record("b", 0, "b0-again");

    assertThat(check.duplicates()).isOne();
  }

  @Test
  void gapIsReportedAsMissing() {
    check.record("a", 0, "a0");
    check.record("a", 1, "a1");
    check.record("a", 3, "a3");
    check.record("b", 0, "b0");
    check.record("b", 1, "b1");
    check.record("b", 2, "b2");

    assertThat(check.isComplete()).isFalse();
    assertThat(check.missing()).isOne();
    assertThat(check.orderViolations()).isZero();
    assertThatThrownBy(check::assertDeliveredInOrder)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("a: missing [2]");
  }

  @Test
  void outOfOrderPairIsReported() {
    check.record("a", 0, "a0");
    check.record("a", 2, "a2");
    check.record("a", 1, "a1");
    check.record("a", 3, "a3");
    for (int s = 0; s < 3; s++) {
      check.record("b", s, "b" + s);
    }

    assertThat(check.isComplete()).isTrue();
    assertThat(check.orderViolations()).isOne();
    assertThat(check.problems())
        .containsExactly("a: missing [], duplicates [], out of order [1 after 2]");
    assertThatThrownBy(check::assertDeliveredInOrder).isInstanceOf(AssertionError.class);
  }

  @Test
  void unknownAggregateOrSequenceIsUnexpected() {
    deliverAll();
    check.record("zzz", 0, "z0");
    check.record("a", 4, "a4");

    assertThat(check.unexpected()).isEqualTo(2);
    assertThatThrownBy(check::assertDeliveredInOrder).hasMessageContaining("unexpected: [zzz#0");
  }

  private void deliverAll() {
    expected()
        .forEach(
            (id, count) -> {
              for (int s = 0; s < count; s++) {
                check.record(id, s, id + s);
              }
            });
  }

  private static Map<String, Integer> expected() {
    Map<String, Integer> expected = new LinkedHashMap<>();
    expected.put("a", 4);
    expected.put("b", 3);
    return expected;
  }
}
