package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import java.util.Map;

/** Reads {@link OutboxOptions} from Hibernate settings. */
final class OptionsResolver {

  private OptionsResolver() {}

  static OutboxOptions resolve(Map<String, Object> settings) {
    Object value = settings.get(OutboxSettings.OPTIONS);
    OutboxOptions options;
    if (value == null) {
      options = OutboxOptions.defaults();
    } else if (value instanceof OutboxOptions given) {
      options = given;
    } else {
      throw new OutboxException(
          "Setting "
              + OutboxSettings.OPTIONS
              + " must hold an OutboxOptions instance, but held a "
              + value.getClass().getName()
              + ". Pass the object in the properties map of"
              + " Persistence.createEntityManagerFactory or StandardServiceRegistryBuilder.applySetting;"
              + " persistence.xml can set "
              + OutboxSettings.CREATE_SCHEMA
              + ", "
              + OutboxSettings.OUTBOX_TABLE
              + " and "
              + OutboxSettings.DEAD_LETTER_TABLE
              + " as text.");
    }
    OutboxOptions.Builder builder = options.toBuilder();
    Object createSchema = settings.get(OutboxSettings.CREATE_SCHEMA);
    if (createSchema != null) {
      builder.createSchema(bool(OutboxSettings.CREATE_SCHEMA, createSchema));
    }
    Object outboxTable = settings.get(OutboxSettings.OUTBOX_TABLE);
    if (outboxTable != null) {
      builder.outboxTable(outboxTable.toString().strip());
    }
    Object deadLetterTable = settings.get(OutboxSettings.DEAD_LETTER_TABLE);
    if (deadLetterTable != null) {
      builder.deadLetterTable(deadLetterTable.toString().strip());
    }
    return builder.build();
  }

  private static boolean bool(String key, Object value) {
    String text = value.toString().strip();
    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(text);
    }
    throw new OutboxException(key + " must be true or false, but was \"" + text + '"');
  }
}
