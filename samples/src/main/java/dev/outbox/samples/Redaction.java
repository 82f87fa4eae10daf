package dev.outbox.samples;

import java.util.regex.Pattern;

/** Masks credentials in URLs and connection strings before they are printed. */
public final class Redaction {

  private static final Pattern URI_PASSWORD = Pattern.compile("(://[^:/@\\s]+:)[^@\\s]+@");
  private static final Pattern QUERY_PASSWORD =
      Pattern.compile("(?i)((?:password|sharedaccesskey|token)=)[^&;\\s]+");

  private Redaction() {}

  /**
   * The text with passwords of {@code scheme://user:password@host}, {@code password=...} and {@code
   * SharedAccessKey=...} replaced by {@code ****}.
   *
   * @param text a URL, a connection string or a message that may contain one
   * @return the masked text
   */
  public static String redact(String text) {
    if (text == null) {
      return null;
    }
    String masked = URI_PASSWORD.matcher(text).replaceAll("$1****@");
    return QUERY_PASSWORD.matcher(masked).replaceAll("$1****");
  }
}
