package dev.outbox.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.jdbc.internal.EventRows;
import dev.outbox.spi.EventSerializer;
import java.util.Objects;

/**
 * Serializes events to JSON with Jackson. Thread-safe.
 *
 * <p>The default mapper writes {@code java.time} values as ISO-8601 strings and knows {@code
 * Optional}. An event record without components is written as {@code {}}; a value inside an event
 * in which Jackson sees no properties (private fields, no getters) fails the flush instead of being
 * written as {@code {}}, which would lose its data: give it getters, annotate its fields with
 * {@code @JsonProperty}, or register a serializer for it. Hand in your own {@link ObjectMapper} to
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
   * @return a new mapper with the Java time and JDK 8 modules and ISO dates; values without
   *     properties fail ({@link SerializationFeature#FAIL_ON_EMPTY_BEANS} stays on)
   */
  public static ObjectMapper defaultMapper() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .addModule(new Jdk8Module())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .build();
  }

  @Override
  public String serialize(DomainEvent event) {
    try {
      return mapper.writeValueAsString(event);
    } catch (InvalidDefinitionException e) {
      if (e.getType() == null || !e.getOriginalMessage().startsWith("No serializer found")) {
        throw failed(event, e);
      }
      // Jackson's own hint (disable FAIL_ON_EMPTY_BEANS) would write the value as {} and lose it.
      throw new OutboxException(
          "Jackson cannot serialize "
              + event.getClass().getName()
              + ": it sees no properties in "
              + e.getType().getRawClass().getName()
              + location(e)
              + ". Give that class getters or @JsonProperty fields, or register a serializer for"
              + " it in the ObjectMapper; writing it as {} would lose its data.",
          e);
    } catch (JsonProcessingException e) {
      throw failed(event, e);
    }
  }

  private static OutboxException failed(DomainEvent event, JsonProcessingException e) {
    return new OutboxException(
        "Jackson cannot serialize "
            + event.getClass().getName()
            + location(e)
            + ": "
            + sentence(e.getOriginalMessage(), e),
        e);
  }

  /**
   * Where in the event the failure is, as {@code " at Event["field"]"}; nothing for the event
   * itself, whose path is empty.
   */
  private static String location(JsonProcessingException e) {
    if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      return " at " + mapping.getPathReference();
    }
    return "";
  }

  /** Jackson's message as one sentence: ending in a single period, whether or not it had one. */
  private static String sentence(String message, JsonProcessingException e) {
    String text = message == null || message.isBlank() ? e.getClass().getName() : message;
    return EventRows.withoutFinalPeriod(text) + '.';
  }

  @Override
  public String toString() {
    return "JacksonEventSerializer";
  }
}
