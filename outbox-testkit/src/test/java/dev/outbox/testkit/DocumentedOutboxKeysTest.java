package dev.outbox.testkit;

import dev.outbox.OutboxOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The project README's configuration reference names exactly the keys OutboxOptions reads. */
class DocumentedOutboxKeysTest {

  @Test
  void theConfigurationReferenceListsExactlyTheKeys() {
    DocumentedKeys.assertListed(
        Path.of("..", "README.md"),
        "Configuration reference",
        "outbox.",
        OutboxOptions.keys("outbox"));
  }
}
