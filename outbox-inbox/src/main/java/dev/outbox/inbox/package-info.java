/**
 * The inbox, the consumer side of the outbox: {@link dev.outbox.inbox.Inbox} applies each received
 * {@link dev.outbox.IncomingMessage} once and in order per aggregate, running the consumer's {@link
 * dev.outbox.inbox.InboxHandler} in the consumer's database transaction together with the update of
 * the aggregate's position. {@link dev.outbox.inbox.InboxOptions} configures it, {@link
 * dev.outbox.inbox.InboxResult} says what became of a message, {@link
 * dev.outbox.inbox.InboxListener} observes it. Public API; the implementation is in {@code
 * dev.outbox.inbox.internal}.
 */
package dev.outbox.inbox;
