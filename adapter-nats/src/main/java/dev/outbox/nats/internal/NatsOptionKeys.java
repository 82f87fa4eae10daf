package dev.outbox.nats.internal;

import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.nats.NatsStreamOptions;
import dev.outbox.spi.OptionsBinder;

/**
 * The string keys of {@link NatsPublisherOptions} and its {@link NatsStreamOptions}, read with the
 * outbox's one grammar ({@link OptionsBinder}). A user name and its password, and a trust store and
 * its password, are set together.
 */
public final class NatsOptionKeys {

  /** What the keys set: the two builders, and the pairs that are set together. */
  public static final class Target {
    private final NatsPublisherOptions.Builder publisher = NatsPublisherOptions.builder();
    private final NatsStreamOptions.Builder stream = NatsStreamOptions.builder();
    private String username;
    private String password;
    private String truststore;
    private String truststorePassword;

    /**
     * The options the keys describe.
     *
     * @return the options
     * @throws IllegalArgumentException when a pair or the options do not fit together
     */
    public NatsPublisherOptions build() {
      if (username != null || password != null) {
        publisher.userPassword(username, password == null ? "" : password);
      }
      if (truststore != null || truststorePassword != null) {
        publisher.truststore(truststore, truststorePassword);
      }
      return publisher.stream(stream.build()).build();
    }
  }

  /** The binder; each call binds a new {@link Target}. */
  public static final OptionsBinder<Target> BINDER =
      OptionsBinder.<Target>of("NATS publisher")
          .list("servers", (t, v) -> t.publisher.servers(v))
          .string("username", (t, v) -> t.username = v)
          .secret("password", (t, v) -> t.password = v)
          .secret("token", (t, v) -> t.publisher.token(v))
          .string("credentials-file", (t, v) -> t.publisher.credentialsFile(v))
          .bool("tls", (t, v) -> t.publisher.tls(v))
          .string("truststore-path", (t, v) -> t.truststore = v)
          .secret("truststore-password", (t, v) -> t.truststorePassword = v)
          .string("connection-name", (t, v) -> t.publisher.connectionName(v))
          .duration("connection-timeout", (t, v) -> t.publisher.connectionTimeout(v))
          .duration("reconnect-wait", (t, v) -> t.publisher.reconnectWait(v))
          .string("subject-prefix", (t, v) -> t.publisher.subjectPrefix(v))
          .bool("stream-create", (t, v) -> t.stream.create(v))
          .string("stream-name", (t, v) -> t.stream.name(v))
          .list("stream-subjects", (t, v) -> t.stream.subjects(v))
          .enumeration(
              "stream-storage", NatsStreamOptions.Storage.class, (t, v) -> t.stream.storage(v))
          .duration("stream-duplicate-window", (t, v) -> t.stream.duplicateWindow(v))
          .integer("stream-replicas", (t, v) -> t.stream.replicas(v));

  private NatsOptionKeys() {}
}
