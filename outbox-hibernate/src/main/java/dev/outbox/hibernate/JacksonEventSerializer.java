package dev.outbox.hibernate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.spi.EventSerializer;
import java.util.Objects;

/**
 * Serializes events to JSON with Jackson. Thread-safe.
 *
 * <p>The default mapper writes {@code java.time} values as ISO-8601 strings, knows {@code
 * Optional}, and accepts events without properties. Hand in your own {@link ObjectMapper} to
 * control the JSON:
 *
 * <pre>{@code
 * OutboxOptions.builder().serializer(new JacksonEventSerializer(myMapper)).build();
 * }</pre>
 */
public final class JacksonEventSerializer implements EventSerializer {

  private final ObjectMapper mapper;

  /** A serializer with {@link #defaultMapper()}. */
  public JacksonEventSerializer() {
    this(defaultMapper());
  }

  /**
   * A serializer with the application's mapper.
   *
   * @param mapper the mapper, not null; it is not changed
   */
  public JacksonEventSerializer(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
  }

  /**
   * The mapper used when none is handed in.
   *
   * @return a new mapper with the Java time and JDK 8 modules, ISO dates, empty beans allowed
   */
  public static ObjectMapper defaultMapper() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .addModule(new Jdk8Module())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .build();
  }

  @Override
  public String serialize(DomainEvent event) {
    try {
      return mapper.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new OutboxException(
          "Jackson cannot serialize " + event.getClass().getName() + ": " + e.getOriginalMessage(),
          e);
    }
  }

  @Override
  public String toString() {
    return "JacksonEventSerializer";
  }
}
