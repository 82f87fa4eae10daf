package dev.outbox.internal;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.DeadLetterService;
import dev.outbox.spi.OutboxStore;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntConsumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The dead letters of a store; a replay is reported (to wake the processor and the listeners). */
final class StoreDeadLetterService implements DeadLetterService {

  private static final Logger LOG = LoggerFactory.getLogger(StoreDeadLetterService.class);
  private static final int PAGE = 500;

  private final OutboxStore store;
  private final IntConsumer onReplay;

  StoreDeadLetterService(OutboxStore store, IntConsumer onReplay) {
    this.store = store;
    this.onReplay = onReplay;
  }

  @Override
  public List<DeadLetter> list(DeadLetterQuery query) {
    return store.findDeadLetters(query);
  }

  @Override
  public Optional<DeadLetter> find(UUID id) {
    return store.findDeadLetter(Objects.requireNonNull(id, "id"));
  }

  @Override
  public long count(DeadLetterQuery query) {
    return store.countDeadLetters(query);
  }

  @Override
  public int replay(Collection<UUID> ids) {
    int replayed = store.replayDeadLetters(ids);
    if (replayed > 0) {
      LOG.info("Replayed {} dead letter(s)", replayed);
      onReplay.accept(replayed);
    }
    return replayed;
  }

  @Override
  public int replayAll(DeadLetterQuery query) {
    return drain(query, this::replay);
  }

  @Override
  public int purge(Collection<UUID> ids) {
    int purged = store.purgeDeadLetters(ids);
    if (purged > 0) {
      LOG.info("Purged {} dead letter(s)", purged);
    }
    return purged;
  }

  @Override
  public int purgeAll(DeadLetterQuery query) {
    return drain(query, this::purge);
  }

  /**
   * Applies the action page by page; each page leaves the table, so the next is again the first.
   */
  private int drain(DeadLetterQuery query, ToIntFunction<Collection<UUID>> action) {
    DeadLetterQuery firstPage = query.page(0, PAGE);
    int total = 0;
    while (true) {
      List<UUID> ids =
          store.findDeadLetters(firstPage).stream().map(d -> d.message().id()).toList();
      int done = ids.isEmpty() ? 0 : action.applyAsInt(ids);
      total += done;
      if (ids.size() < PAGE || done == 0) {
        return total;
      }
    }
  }
}
