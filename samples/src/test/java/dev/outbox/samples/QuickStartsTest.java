package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README's Quick start and the quick-start projects ({@code samples/quickstart-*}) one:
 * every code block the README marks as taken from a file appears in that file line for line, and
 * every project depends on the outbox version being built, and the files the projects share (each
 * is stand-alone, so it carries its own copy) are the same in each. The projects themselves are
 * built and run by the test command (they are modules of the build, each with a test of its own).
 */
class QuickStartsTest {

  /** {@code <!-- quickstart: path -->}, then a fenced block. */
  private static final Pattern MARKED_BLOCK =
      Pattern.compile("<!-- quickstart: (\\S+) -->\\n```\\w*\\n(.*?)\\n```", Pattern.DOTALL);

  private static final Pattern OUTBOX_VERSION =
      Pattern.compile("<outbox\\.version>([^<]+)</outbox\\.version>");

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final String ORDERS = "src/main/java/com/example/orders/";

  /** The copies each quick start carries, and the quick starts that carry them. */
  private static final Map<String, List<String>> SHARED =
      Map.of(
          ORDERS + "OrderPlaced.java",
          List.of("jpa", "spring-boot", "jdbc"),
          ORDERS + "OrderEvents.java",
          List.of("jpa", "spring-boot", "jdbc"),
          "src/main/resources/db/migration/V1__orders.sql",
          List.of("jpa", "spring-boot", "jdbc"),
          ORDERS + "Order.java",
          List.of("jpa", "spring-boot"));

  @Test
  void everyMarkedReadmeBlockIsInTheFileItNames() throws IOException {
    Matcher blocks = MARKED_BLOCK.matcher(Files.readString(ROOT.resolve("README.md")));
    int checked = 0;
    while (blocks.find()) {
      Path file = ROOT.resolve(blocks.group(1));
      assertThat(file).as("the file a README block names").exists();
      List<String> block = blocks.group(2).lines().map(String::stripTrailing).toList();
      List<String> source = Files.readAllLines(file).stream().map(String::stripTrailing).toList();
      assertThat(Collections.indexOfSubList(source, block))
          .as("README block from %s, not found in it line for line:%n%s", file, blocks.group(2))
          .isNotNegative();
      checked++;
    }
    assertThat(checked).as("marked README blocks").isGreaterThanOrEqualTo(4);
  }

  @Test
  void theFilesTheQuickStartsShareAreTheSameInEach() throws IOException {
    for (Map.Entry<String, List<String>> shared : SHARED.entrySet()) {
      Path first =
          ROOT.resolve("samples/quickstart-" + shared.getValue().get(0)).resolve(shared.getKey());
      for (String project : shared.getValue()) {
        Path copy = ROOT.resolve("samples/quickstart-" + project).resolve(shared.getKey());
        assertThat(Files.readString(copy))
            .as("%s, the same as %s", copy, first)
            .isEqualTo(Files.readString(first));
      }
    }
  }

  @Test
  void everyQuickStartDependsOnTheVersionBeingBuilt() throws IOException {
    String version = System.getProperty("outbox.version");
    assertThat(version).as("outbox.version, set by the build").isNotBlank();
    List<Path> projects = new ArrayList<>();
    try (Stream<Path> samples = Files.list(ROOT.resolve("samples"))) {
      samples
          .filter(dir -> dir.getFileName().toString().startsWith("quickstart-"))
          .forEach(projects::add);
    }
    assertThat(projects).hasSizeGreaterThanOrEqualTo(3);
    String modules = Files.readString(ROOT.resolve("pom.xml"));
    for (Path project : projects) {
      Matcher declared = OUTBOX_VERSION.matcher(Files.readString(project.resolve("pom.xml")));
      assertThat(declared.find()).as("%s declares outbox.version", project).isTrue();
      assertThat(declared.group(1)).as("outbox.version of %s", project).isEqualTo(version);
      assertThat(modules)
          .as("the build runs %s", project.getFileName())
          .contains("<module>samples/" + project.getFileName() + "</module>");
    }
  }
}
