package dev.outbox.inbox.internal;

import dev.outbox.IncomingMessage;

/** A position's key: the source and the message's aggregate, checked against the columns. */
record Key(String source, String aggregateType, String aggregateId) {

  /** The width of the tables' aggregate and message id columns. */
  static final int MAX_LENGTH = 255;

  /**
   * The key of a message with a seq.
   *
   * @throws IllegalArgumentException when the aggregate type or id is longer than the columns
   */
  static Key of(String source, IncomingMessage message) {
    return new Key(
        source,
        fitting("aggregate type", message.aggregateType(), message),
        fitting("aggregate id", message.aggregateId(), message));
  }

  /**
   * Checks that a value fits the tables' columns.
   *
   * @throws IllegalArgumentException naming the field, the message and the limit
   */
  static String fitting(String field, String value, IncomingMessage message) {
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "The "
              + field
              + " of "
              + message
              + " has "
              + value.length()
              + " characters, but the inbox tables hold at most "
              + MAX_LENGTH
              + ": shorten it at the producer");
    }
    return value;
  }

  @Override
  public String toString() {
    return aggregateType + '/' + aggregateId + " (source " + source + ')';
  }
}
