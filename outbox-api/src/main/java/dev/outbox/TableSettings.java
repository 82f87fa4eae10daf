package dev.outbox;

import java.util.regex.Pattern;

/**
 * Where the outbox keeps its rows: the two tables named in the options, the head table and the
 * published view derived from the first, and whether missing tables are created at start.
 */
record TableSettings(String outboxTable, String deadLetterTable, boolean createSchema) {

  /**
   * A table name is at most 40 characters, so that the index names derived from it ({@code
   * ix_<table>_pending_aggregate}) fit PostgreSQL's 63 and MySQL's 64 characters.
   */
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,39}");

  static final TableSettings DEFAULTS =
      new TableSettings(
          OutboxOptions.DEFAULT_OUTBOX_TABLE, OutboxOptions.DEFAULT_DEAD_LETTER_TABLE, false);

  TableSettings withOutboxTable(String name) {
    return new TableSettings(tableName("outboxTable", name), deadLetterTable, createSchema);
  }

  TableSettings withDeadLetterTable(String name) {
    return new TableSettings(outboxTable, tableName("deadLetterTable", name), createSchema);
  }

  TableSettings withCreateSchema(boolean create) {
    return new TableSettings(outboxTable, deadLetterTable, create);
  }

  /** A trailing {@code _messages} becomes {@code _heads}; any other name gets it appended. */
  String headTable() {
    return derivedName("_heads");
  }

  /** Named like the head table, with {@code _published}. */
  String publishedView() {
    return derivedName("_published");
  }

  /** Checks that no two of the four names are the same. */
  void checkTogether() {
    if (outboxTable.equalsIgnoreCase(deadLetterTable)) {
      throw new IllegalArgumentException(
          "deadLetterTable must differ from outboxTable, but both were " + outboxTable);
    }
    if (deadLetterTable.equalsIgnoreCase(headTable())
        || deadLetterTable.equalsIgnoreCase(publishedView())) {
      throw new IllegalArgumentException(
          "deadLetterTable must differ from the head table and the published view derived from"
              + " outboxTable ("
              + headTable()
              + ", "
              + publishedView()
              + "), but was "
              + deadLetterTable);
    }
  }

  private String derivedName(String suffix) {
    String base =
        outboxTable.endsWith("_messages")
            ? outboxTable.substring(0, outboxTable.length() - "_messages".length())
            : outboxTable;
    return base + suffix;
  }

  private static String tableName(String field, String name) {
    if (name == null || !isQualifiedIdentifier(name)) {
      throw new IllegalArgumentException(
          field
              + " must be a plain SQL identifier (letters, digits, _; at most 40 characters;"
              + " optionally schema.table),"
              + " but was "
              + (name == null ? "null" : '"' + name + '"'));
    }
    return name;
  }

  private static boolean isQualifiedIdentifier(String name) {
    int dot = name.indexOf('.');
    if (dot < 0) {
      return IDENTIFIER.matcher(name).matches();
    }
    return IDENTIFIER.matcher(name.substring(0, dot)).matches()
        && IDENTIFIER.matcher(name.substring(dot + 1)).matches();
  }
}
