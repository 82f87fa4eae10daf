package dev.outbox.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** JDBC URLs as they may be printed: with any password in them masked. */
final class JdbcUrls {

  private static final Pattern PASSWORD_PARAMETER =
      Pattern.compile("(?i)([?&;:][\\w.-]*(?:password|pwd)=)([^&;]*)");
  private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?]*:)([^@/]*)@");

  private JdbcUrls() {}

  /**
   * The URL with the values of its password parameters ({@code password=}, {@code pwd=}, {@code
   * sslpassword=}, ...) and of a {@code user:password@} part replaced by {@code ****}.
   */
  static String redact(String url) {
    if (url == null) {
      return null;
    }
    String masked = PASSWORD_PARAMETER.matcher(url).replaceAll("$1****");
    return USER_INFO.matcher(masked).replaceAll("$1****@");
  }

  /**
   * The passwords written in the URL, so that they are masked wherever a driver repeats them.
   *
   * @param url the JDBC URL
   * @return the values of its password parameters and of a {@code user:password@} part
   */
  static List<String> secrets(String url) {
    List<String> secrets = new ArrayList<>();
    Matcher parameter = PASSWORD_PARAMETER.matcher(url);
    while (parameter.find()) {
      secrets.add(parameter.group(2));
    }
    Matcher userInfo = USER_INFO.matcher(url);
    while (userInfo.find()) {
      secrets.add(userInfo.group(2));
    }
    secrets.removeIf(String::isEmpty);
    return secrets;
  }
}
