/**
 * Implementation of the inbox. Not API: anything here may change without notice.
 *
 * <p>{@link dev.outbox.inbox.internal.Inboxes} makes the inbox; {@link
 * dev.outbox.inbox.internal.Decision} is the one rule that classifies a message against a position;
 * {@link dev.outbox.inbox.internal.InboxDialect} holds what differs per database.
 */
package dev.outbox.inbox.internal;
