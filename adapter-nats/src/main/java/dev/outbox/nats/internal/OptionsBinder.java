package dev.outbox.nats.internal;

import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.nats.NatsStreamOptions;
import java.util.Locale;
import java.util.function.Consumer;

/** Binds {@link NatsPublisherOptions} from string settings; see its {@code fromProperties}. */
public final class OptionsBinder {

  private OptionsBinder() {}

  /**
   * Reads the options.
   *
   * @param settings the settings under their prefix
   * @return the options
   * @throws IllegalArgumentException naming the key and the bad value, or the unknown keys
   */
  public static NatsPublisherOptions bind(Settings settings) {
    NatsPublisherOptions.Builder b = NatsPublisherOptions.builder();
    set(settings.list("servers"), b::servers);
    String username = settings.get("username");
    String password = settings.get("password");
    if (username != null || password != null) {
      b.userPassword(username, password == null ? "" : password);
    }
    set(settings.get("token"), b::token);
    set(settings.get("credentialsFile"), b::credentialsFile);
    set(settings.bool("tls"), b::tls);
    String truststore = settings.get("truststorePath");
    String truststorePassword = settings.get("truststorePassword");
    if (truststore != null || truststorePassword != null) {
      b.truststore(truststore, truststorePassword);
    }
    set(settings.get("connectionName"), b::connectionName);
    set(settings.duration("connectionTimeout"), b::connectionTimeout);
    set(settings.duration("reconnectWait"), b::reconnectWait);
    set(settings.get("subjectPrefix"), b::subjectPrefix);
    b.stream(stream(settings));
    settings.rejectUnknown();
    return b.build();
  }

  private static NatsStreamOptions stream(Settings settings) {
    NatsStreamOptions.Builder b = NatsStreamOptions.builder();
    set(settings.bool("stream.create"), b::create);
    set(settings.get("stream.name"), b::name);
    set(settings.list("stream.subjects"), b::subjects);
    String storage = settings.get("stream.storage");
    if (storage != null) {
      try {
        b.storage(NatsStreamOptions.Storage.valueOf(storage.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            settings.key("stream.storage") + " must be file or memory, but was \"" + storage + '"',
            e);
      }
    }
    set(settings.duration("stream.duplicateWindow"), b::duplicateWindow);
    set(settings.integer("stream.replicas"), b::replicas);
    return b.build();
  }

  private static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
