package dev.outbox.nats.internal;

import dev.outbox.OutboxMessage;
import java.util.StringJoiner;

/** Checks NATS subjects and builds the default one of a message. */
public final class Subjects {

  private Subjects() {}

  /**
   * The default subject: {@code <prefix>.<aggregateType>.<eventType>}. Characters a subject cannot
   * hold (whitespace, {@code *}, {@code >}) become {@code _}; dots in the event type stay, so
   * {@code order.placed} gives {@code events.Order.order.placed}.
   *
   * @param prefix the subject prefix, already checked
   * @param message the message
   * @return the subject
   */
  public static String defaultSubject(String prefix, OutboxMessage message) {
    return prefix + '.' + tokens(message.aggregateType()) + '.' + tokens(message.eventType());
  }

  /**
   * Checks a subject.
   *
   * @param field the option name for the message
   * @param subject the subject
   * @param wildcards whether {@code *} tokens and a last {@code >} token are allowed
   * @return the subject
   * @throws IllegalArgumentException naming the field and the bad value
   */
  public static String check(String field, String subject, boolean wildcards) {
    String problem = problem(subject, wildcards);
    if (problem != null) {
      throw new IllegalArgumentException(
          field
              + " must be a NATS subject ("
              + problem
              + "), but was "
              + (subject == null ? "null" : '"' + subject + '"'));
    }
    return subject;
  }

  /**
   * What is wrong with a subject to publish to.
   *
   * @param subject the subject
   * @param wildcards whether wildcards are allowed
   * @return the problem, or {@code null} when it is valid
   */
  public static String problem(String subject, boolean wildcards) {
    if (subject == null || subject.isEmpty()) {
      return "not empty";
    }
    String[] tokens = subject.split("\\.", -1);
    for (int i = 0; i < tokens.length; i++) {
      String token = tokens[i];
      if (token.isEmpty()) {
        return "no empty token";
      }
      if (token.chars().anyMatch(Character::isWhitespace)) {
        return "no whitespace";
      }
      boolean wildcard = token.equals("*") || token.equals(">") && i == tokens.length - 1;
      if ((token.contains("*") || token.contains(">")) && !(wildcards && wildcard)) {
        return wildcards ? "'*' and a last '>' only as whole tokens" : "no wildcards";
      }
    }
    return null;
  }

  private static String tokens(String text) {
    StringJoiner out = new StringJoiner(".");
    for (String token : text.split("\\.", -1)) {
      out.add(token.isEmpty() ? "_" : token.replaceAll("[\\s*>]", "_"));
    }
    return out.toString();
  }
}
