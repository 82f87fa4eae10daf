package dev.outbox.inbox;

/**
 * What one run of {@link Inbox#cleanUp()} deleted.
 *
 * @param positions positions idle longer than {@link InboxOptions#positionRetention()} and without
 *     a gap
 * @param receivedIds ids of messages without seq received longer ago than {@link
 *     InboxOptions#idRetention()}
 */
public record InboxCleanup(int positions, int receivedIds) {

  /**
   * Every row deleted.
   *
   * @return positions plus received ids
   */
  public int total() {
    return positions + receivedIds;
  }
}
