package dev.outbox.jdbc.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Time-ordered message ids (RFC 9562 version 7): 48 bits of Unix milliseconds, then random bits.
 * Ids written later sort later to the millisecond, which keeps the primary key's index appending.
 */
final class UuidV7 {

  private UuidV7() {}

  static UUID next() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long millis = System.currentTimeMillis();
    long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low);
  }
}
