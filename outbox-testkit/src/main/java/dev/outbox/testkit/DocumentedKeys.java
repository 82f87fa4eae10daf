package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps an options table in a README and the keys the code binds from drifting apart: every key in
 * backticks that starts with the prefix must be one the options read, and every key they read must
 * be in the README.
 */
public final class DocumentedKeys {

  private static final Pattern QUOTED = Pattern.compile("`([^`\\s]+)`");

  private DocumentedKeys() {}

  /**
   * Asserts that the README names exactly {@code keys} among its backticked words that start with
   * {@code prefix}.
   *
   * @param readme the README, relative to the module (the tests' working directory)
   * @param prefix the dotted prefix with its dot, for example {@code outbox.kafka.}
   * @param keys what the options' binder reads, for example from {@code KafkaPublisherOptions.keys}
   */
  public static void assertListed(Path readme, String prefix, List<String> keys) {
    assertListed(read(readme), readme.toString(), prefix, keys);
  }

  /**
   * The same within one section of the README: from the heading {@code ## section} to the next
   * heading of that level.
   *
   * @param readme the README
   * @param section the heading's text, for example {@code Configuration reference}
   * @param prefix the dotted prefix with its dot, for example {@code outbox.}
   * @param keys what the options' binder reads
   */
  public static void assertListed(Path readme, String section, String prefix, List<String> keys) {
    String text = read(readme);
    int start = text.indexOf("\n## " + section + "\n");
    assertThat(start).as("the section ## %s in %s", section, readme).isNotNegative();
    int end = text.indexOf("\n## ", start + 1);
    assertListed(
        text.substring(start, end < 0 ? text.length() : end),
        readme + " ## " + section,
        prefix,
        keys);
  }

  private static String read(Path readme) {
    try {
      return Files.readString(readme);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + readme.toAbsolutePath(), e);
    }
  }

  private static void assertListed(String text, String where, String prefix, List<String> keys) {
    Set<String> documented = new TreeSet<>();
    Matcher matcher = QUOTED.matcher(text);
    while (matcher.find()) {
      if (matcher.group(1).startsWith(prefix)) {
        documented.add(matcher.group(1));
      }
    }
    assertThat(documented)
        .as("the keys %s documents under %s", where, prefix)
        .containsExactlyInAnyOrderElementsOf(new TreeSet<>(keys));
  }
}
