package dev.outbox.servicebus;

import static dev.outbox.servicebus.OptionChecks.requireText;

import com.azure.core.credential.TokenCredential;
import java.util.Objects;

/**
 * Which namespace the publisher reaches and as whom: a connection string, or a namespace with a
 * Microsoft Entra {@link TokenCredential}; one of them is required. The connection string holds the
 * access key and is never part of {@link #toString()}.
 */
record ConnectionSettings(String connectionString, String namespace, TokenCredential credential) {

  static final ConnectionSettings DEFAULTS = new ConnectionSettings(null, null, null);

  /** Clears any namespace. */
  ConnectionSettings withConnectionString(String value) {
    if (value == null || !value.contains("Endpoint=")) {
      throw new IllegalArgumentException(
          "connectionString must contain Endpoint=..., but was "
              + (value == null ? "null" : "a string without it"));
    }
    return new ConnectionSettings(value, null, credential);
  }

  /** Clears any connection string. */
  ConnectionSettings withNamespace(String name, TokenCredential tokenCredential) {
    return new ConnectionSettings(
        null,
        requireText("namespace", name),
        Objects.requireNonNull(tokenCredential, "credential must not be null"));
  }

  /** Checks that a connection string or a namespace with a credential is set. */
  void checkTogether() {
    if (connectionString == null && namespace == null) {
      throw new IllegalArgumentException(
          "connectionString or namespace with credential must be set, but neither was");
    }
  }

  @Override
  public String toString() {
    return "ConnectionSettings[connectionString="
        + (connectionString == null ? "none" : "****")
        + ", namespace="
        + namespace
        + ", credential="
        + (credential == null ? "none" : credential.getClass().getSimpleName())
        + ']';
  }
}
