package dev.outbox.cli;

import java.util.UUID;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a message id, naming what one looks like when the text is not one. */
final class MessageIdConverter implements ITypeConverter<UUID> {

  @Override
  public UUID convert(String value) {
    try {
      return UUID.fromString(value.strip());
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a message id: ids are UUIDs such as"
              + " 3f1c5e0a-8d9b-4c2e-9a7f-1b2c3d4e5f60 (outbox dead-letters list shows them)");
    }
  }
}
