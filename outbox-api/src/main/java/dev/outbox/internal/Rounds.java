package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a batch into publish rounds: round r holds the r-th message of each aggregate, in batch
 * order. A batch of distinct aggregates is one round. Publishing round by round, and dropping an
 * aggregate from later rounds once one of its messages failed, keeps per-aggregate order even when
 * a broker takes message n+1 after refusing message n.
 */
final class Rounds {

  private Rounds() {}

  static List<List<OutboxMessage>> of(List<OutboxMessage> batch) {
    Map<String, Integer> seen = new HashMap<>();
    List<List<OutboxMessage>> rounds = new ArrayList<>();
    for (OutboxMessage message : batch) {
      int round = seen.merge(key(message), 1, Integer::sum) - 1;
      if (round == rounds.size()) {
        rounds.add(new ArrayList<>());
      }
      rounds.get(round).add(message);
    }
    return rounds;
  }

  static String key(OutboxMessage message) {
    return message.aggregateType() + '\u0000' + message.aggregateId();
  }
}
