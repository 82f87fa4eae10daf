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
}
