package dev.outbox.nats.internal;

/** Keeps secrets out of strings that may be printed or logged. */
public final class Redaction {

  private Redaction() {}

  /**
   * A server URL with any {@code user:password@} or {@code token@} replaced by {@code ****@}.
   *
   * @param server a server URL, or {@code null}
   * @return the URL safe to print
   */
  public static String url(String server) {
    return server == null
        ? null
        : server.replaceAll("^([a-zA-Z][a-zA-Z0-9+.-]*://)?[^/@]*@", "$1****@");
  }

  /**
   * A text (a client's exception message) with the {@code user:password@} or {@code token@} of
   * every URL in it replaced by {@code ****@}: jnats names the servers it could not reach as they
   * were given, credentials included.
   *
   * @param text the text, or {@code null}
   * @return the text safe to print
   */
  public static String text(String text) {
    return text == null
        ? null
        : text.replaceAll("([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\\s,\\]]*@", "$1****@");
  }
}
