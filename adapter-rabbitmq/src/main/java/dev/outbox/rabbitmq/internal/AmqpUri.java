package dev.outbox.rabbitmq.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * An {@code amqp://} or {@code amqps://} URI taken apart, so that the options keep its parts and
 * never the URI itself (which may carry a password). Error messages show the URI masked.
 *
 * @param tls whether the scheme is {@code amqps}
 * @param host the host
 * @param port the port, or {@code -1} when the URI has none
 * @param virtualHost the virtual host, or {@code null} when the URI has no path
 * @param username the user, or {@code null}
 * @param password the password, or {@code null}
 */
public record AmqpUri(
    boolean tls, String host, int port, String virtualHost, String username, String password) {

  private static final String FORM = "amqp[s]://[user[:password]@]host[:port][/vhost]";

  /**
   * Parses a URI.
   *
   * @param text the URI
   * @return its parts
   * @throws IllegalArgumentException naming the field {@code uri} and the masked value
   */
  public static AmqpUri parse(String text) {
    if (text == null || text.isBlank()) {
      throw invalid(text, "must not be blank");
    }
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw invalid(text, "must have the form " + FORM);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
    if (!scheme.equals("amqp") && !scheme.equals("amqps")) {
      throw invalid(text, "must start with amqp:// or amqps://");
    }
    if (uri.getHost() == null) {
      throw invalid(text, "must name a host: " + FORM);
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw invalid(text, "must not have query parameters; set them as options instead");
    }
    String path = uri.getRawPath();
    if (path != null && path.indexOf('/', 1) != -1) {
      throw invalid(text, "must have at most one path segment (the virtual host)");
    }
    String vhost = path == null || path.length() <= 1 ? null : decode(path.substring(1));
    String user = null;
    String password = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
      password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
    }
    return new AmqpUri(scheme.equals("amqps"), uri.getHost(), uri.getPort(), vhost, user, password);
  }

  /**
   * A URI or connection string with its password replaced by {@code ****}.
   *
   * @param text the URI, may be {@code null}
   * @return the masked text; {@code ****} for text that is not recognisably a URI
   */
  public static String mask(String text) {
    if (text == null) {
      return null;
    }
    int start = text.indexOf("://");
    if (start < 0) {
      return "****";
    }
    int at = text.lastIndexOf('@');
    if (at < start) {
      return text;
    }
    int colon = text.indexOf(':', start + 3);
    if (colon < 0 || colon > at) {
      return text;
    }
    return text.substring(0, colon + 1) + "****" + text.substring(at);
  }

  @Override
  public String toString() {
    return "AmqpUri[tls="
        + tls
        + ", host="
        + host
        + ", port="
        + port
        + ", virtualHost="
        + virtualHost
        + ", username="
        + username
        + ", password="
        + (password == null ? null : "****")
        + ']';
  }

  private static String decode(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static IllegalArgumentException invalid(String text, String reason) {
    return new IllegalArgumentException("uri " + reason + ", but was " + mask(text));
  }
}
