package dev.outbox.nats;

import static dev.outbox.spi.OptionText.requireText;

import dev.outbox.nats.internal.Redaction;
import java.util.List;

/**
 * Which servers the publisher connects to and how the link is secured: the server URLs, TLS, and a
 * trust store with its password. Neither the trust store's password nor credentials embedded in a
 * server URL are part of {@link #toString()}.
 */
record ConnectionSettings(
    List<String> servers, boolean tls, String truststorePath, String truststorePassword) {

  static final ConnectionSettings DEFAULTS =
      new ConnectionSettings(NatsPublisherOptions.DEFAULT_SERVERS, false, null, null);

  ConnectionSettings withServers(List<String> urls) {
    if (urls == null || urls.isEmpty()) {
      throw new IllegalArgumentException("servers must name at least one server, but was " + urls);
    }
    for (String server : urls) {
      if (server == null || server.isBlank() || server.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException(
            "servers must be URLs without whitespace, but contained "
                + (server == null ? "null" : '"' + Redaction.url(server) + '"'));
      }
    }
    return new ConnectionSettings(List.copyOf(urls), tls, truststorePath, truststorePassword);
  }

  ConnectionSettings withTls(boolean value) {
    return new ConnectionSettings(servers, value, truststorePath, truststorePassword);
  }

  ConnectionSettings withTruststore(String path, String password) {
    return new ConnectionSettings(servers, tls, requireText("truststorePath", path), password);
  }

  /** The servers with any credentials in their URLs masked. */
  List<String> redactedServers() {
    return servers.stream().map(Redaction::url).toList();
  }

  /** Whether the connection uses TLS: turned on, or a trust store set. */
  boolean usesTls() {
    return tls || truststorePath != null;
  }

  @Override
  public String toString() {
    return "ConnectionSettings[servers="
        + redactedServers()
        + ", tls="
        + usesTls()
        + ", truststorePath="
        + truststorePath
        + ", truststorePassword="
        + (truststorePassword == null ? "none" : "****")
        + ']';
  }
}
