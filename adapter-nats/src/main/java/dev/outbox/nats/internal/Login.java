package dev.outbox.nats.internal;

import dev.outbox.nats.NatsPublisherOptions;
import java.net.URI;

/**
 * Who the publisher logs in as, for messages about refused credentials: the kind of credentials
 * and, for a user and password, the user's name. Never a secret.
 *
 * @param kind the kind of credentials
 * @param user the user's name for {@link Kind#USER}, otherwise {@code null}
 */
public record Login(Kind kind, String user) {

  /** The kind of credentials. */
  public enum Kind {
    /** A user and password (set, or in a server URL). */
    USER,
    /** A token. */
    TOKEN,
    /** A credentials file (JWT and NKey). */
    CREDENTIALS_FILE,
    /** None. */
    NONE
  }

  /**
   * Who the options log in as. A user in a server URL ({@code nats://app:secret@host:4222}) counts
   * when none is set; a URL's lone {@code token@} counts as a token.
   *
   * @param options the options
   * @return the login
   */
  public static Login of(NatsPublisherOptions options) {
    if (options.credentialsFile().isPresent()) {
      return new Login(Kind.CREDENTIALS_FILE, null);
    }
    if (options.token().isPresent()) {
      return new Login(Kind.TOKEN, null);
    }
    if (options.username().isPresent()) {
      return new Login(Kind.USER, options.username().get());
    }
    for (String server : options.servers()) {
      String userInfo = userInfo(server);
      if (userInfo != null) {
        int colon = userInfo.indexOf(':');
        return colon < 0
            ? new Login(Kind.TOKEN, null)
            : new Login(Kind.USER, userInfo.substring(0, colon));
      }
    }
    return new Login(Kind.NONE, null);
  }

  private static String userInfo(String server) {
    try {
      return URI.create(server.contains("://") ? server : "nats://" + server).getUserInfo();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
