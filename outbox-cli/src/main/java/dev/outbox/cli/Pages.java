package dev.outbox.cli;

import dev.outbox.DeadLetterQuery;

/** Paging arguments checked as the commands' own, so that a bad one is a usage error. */
final class Pages {

  private Pages() {}

  /**
   * The query's page.
   *
   * @throws CliException (usage) naming the option when the page is out of range
   */
  static DeadLetterQuery of(DeadLetterQuery query, int offset, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new CliException(Exit.USAGE, "--limit must be between 1 and 10000, but was " + limit);
    }
    if (offset < 0) {
      throw new CliException(Exit.USAGE, "--offset must be 0 or more, but was " + offset);
    }
    return query.page(offset, limit);
  }
}
