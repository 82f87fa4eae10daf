package dev.outbox.jdbc.internal;

import dev.outbox.spi.Lease;
import java.time.Duration;

/**
 * What one head outcome asks of its head row, in the terms of the record statement.
 *
 * @param lease the head and the token the change is fenced by
 * @param deliveredSeq the cursor to move to (never back)
 * @param publishedSeq the last seq the broker acknowledged: the cursor, or less when the cursor
 *     passes a dead letter. It moves the head's published seq only when it is past the head's
 *     cursor: a seq at or below the cursor may be one that was dead-lettered, never published
 * @param keep whether the holder keeps the lease when messages wait behind the new cursor
 * @param retryAfter when the head is claimable again, from now, when not kept
 * @param attempts the failed attempts of the next message, or {@code null} when nothing failed
 * @param error the last failure, or {@code null}
 * @param held whether the head waits at a dead letter
 */
record HeadChange(
    Lease lease,
    long deliveredSeq,
    long publishedSeq,
    boolean keep,
    Duration retryAfter,
    Integer attempts,
    String error,
    boolean held) {}
