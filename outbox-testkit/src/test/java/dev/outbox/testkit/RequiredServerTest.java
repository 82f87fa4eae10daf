package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequiredServerTest {

  @Test
  void missingServerAbortsTheTestNamingWhatToStart() {
    int port = EventPublisherContract.closedLocalPort();
    assertThatThrownBy(
            () -> RequiredServer.assumeReachable("Thing", "127.0.0.1", port, "thing --up", false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("Thing")
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("thing --up");
  }

  @Test
  void missingServerFailsTheTestInCi() {
    int port = EventPublisherContract.closedLocalPort();
    assertThatThrownBy(
            () -> RequiredServer.assumeReachable("Thing", "127.0.0.1", port, "thing --up", true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("CI=true");
  }

  @Test
  void listeningServerLetsTheTestRun() throws Exception {
    try (ServerSocket server = new ServerSocket(0)) {
      assertThatCode(
              () ->
                  RequiredServer.assumeReachable(
                      "Thing", "127.0.0.1", server.getLocalPort(), "thing --up", true))
          .doesNotThrowAnyException();
    }
  }
}
