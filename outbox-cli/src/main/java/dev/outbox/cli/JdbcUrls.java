package dev.outbox.cli;

import java.util.regex.Pattern;

/** JDBC URLs as they may be printed: with any password in them masked. */
final class JdbcUrls {

  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;:](?:password|pwd)=)[^&;]*");
  private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?]*:)[^@/]*@");

  private JdbcUrls() {}

  /**
   * The URL with the values of {@code password=} / {@code pwd=} parameters and of a {@code
   * user:password@} part replaced by {@code ****}.
   */
  static String redact(String url) {
    if (url == null) {
      return null;
    }
    String masked = PASSWORD_PARAMETER.matcher(url).replaceAll("$1****");
    return USER_INFO.matcher(masked).replaceAll("$1****@");
  }
}
