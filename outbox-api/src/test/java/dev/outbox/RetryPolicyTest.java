package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void exponentialGrowsByMultiplierUntilTheCap() {
    RetryPolicy policy =
        RetryPolicy.exponential(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));
    assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
    assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
    assertThat(policy.delayAfter(500)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void fixedIsAlwaysTheSame() {
    RetryPolicy policy = RetryPolicy.fixed(Duration.ofMillis(250));
    assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofMillis(250));
    assertThat(policy.delayAfter(9)).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void jitterStaysWithinItsSpreadAndVaries() {
    RetryPolicy policy = RetryPolicy.fixed(Duration.ofSeconds(10)).withJitter(0.5);
    long distinct =
        java.util.stream.IntStream.range(0, 200)
            .mapToObj(i -> policy.delayAfter(3))
            .peek(d -> assertThat(d).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(15)))
            .distinct()
            .count();
    assertThat(distinct).isGreaterThan(1);
  }

  @Test
  void nonsenseIsRefusedWithTheFieldName() {
    assertThatThrownBy(() -> RetryPolicy.exponential(Duration.ZERO, 2, Duration.ofSeconds(1)))
        .hasMessage("initialDelay must be > 0, but was PT0S");
    assertThatThrownBy(
            () -> RetryPolicy.exponential(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1)))
        .hasMessageContaining("multiplier must be a finite number >= 1, but was 0.5");
    assertThatThrownBy(
            () -> RetryPolicy.exponential(Duration.ofSeconds(2), 2, Duration.ofSeconds(1)))
        .hasMessageContaining("maxDelay must be >= initialDelay");
    assertThatThrownBy(() -> RetryPolicy.fixed(Duration.ofSeconds(1)).withJitter(1.5))
        .hasMessage("jitter must be between 0 and 1, but was 1.5");
  }
}
