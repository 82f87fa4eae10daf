package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The contract is not a rubber stamp: each flaw of a publisher fails the test written for it. */
class ContractCatchesFlawedPublishersTest {

  @Test
  void publisherThatReportsUnroutableMessagesAsPublishedFails() {
    FlawedContract contract = new FlawedContract(Flaw.REPORTS_UNROUTABLE_AS_PUBLISHED);
    assertFails(contract, contract::unroutableMessageIsReportedAsFailureNeverSuccess);
    assertFails(
        contract, contract::routableMessagesOfAMixedBatchArePublishedWhenOthersAreUnroutable);
  }

  @Test
  void publisherThatDropsRowHeadersFails() {
    FlawedContract contract = new FlawedContract(Flaw.DROPS_ROW_HEADERS);
    assertFails(contract, contract::eventMetadataAndEveryRowHeaderArriveAsNativeHeaders);
  }

  @Test
  void publisherThatLetsRowHeadersOverrideStandardOnesFails() {
    FlawedContract contract = new FlawedContract(Flaw.LETS_ROW_HEADERS_OVERRIDE);
    assertFails(contract, contract::rowHeadersCannotOverrideTheStandardHeaders);
  }

  @Test
  void publisherThatReordersABatchFails() {
    FlawedContract contract = new FlawedContract(Flaw.REVERSES_BATCH);
    assertFails(contract, contract::messagesOfOneAggregateArriveInBatchOrder);
  }

  @Test
  void publisherThatKeysByAnythingButTheAggregateIdFails() {
    FlawedContract contract = new FlawedContract(Flaw.SENDS_KEY_AS_EVENT_TYPE);
    assertFails(contract, contract::aggregateIdArrivesAsTheKey);
  }

  @Test
  void publisherThatThrowsWhenTheBrokerIsDownFails() {
    FlawedContract contract = new FlawedContract(Flaw.THROWS_WHEN_UNREACHABLE);
    assertFails(contract, contract::unreachableBrokerFailsEveryMessageRetryablyWithinTheTimeout);
  }

  @Test
  void publisherThatOverrunsItsTimeoutWhenTheBrokerIsDownFails() {
    FlawedContract contract = new FlawedContract(Flaw.IGNORES_TIMEOUT_WHEN_UNREACHABLE);
    assertFails(contract, contract::unreachableBrokerFailsEveryMessageRetryablyWithinTheTimeout);
  }

  @Test
  void publisherThatBlamesTheMessageForAnOutageFails() {
    FlawedContract contract = new FlawedContract(Flaw.BLAMES_THE_MESSAGE_FOR_AN_OUTAGE);
    assertFails(contract, contract::unreachableBrokerIsTheBrokersFaultForEveryMessage);
  }

  @Test
  void publisherThatBlamesTheBrokerForAnUnroutableMessageFails() {
    FlawedContract contract = new FlawedContract(Flaw.BLAMES_THE_BROKER_FOR_AN_UNROUTABLE_MESSAGE);
    assertFails(contract, contract::unroutableMessageIsTheMessagesFaultNotTheBrokers);
  }

  private static void assertFails(FlawedContract contract, ThrowingCallable test) {
    try {
      assertThatThrownBy(test).isInstanceOf(AssertionError.class);
    } finally {
      contract.closePublishers();
    }
  }
}
