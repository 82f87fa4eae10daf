package dev.outbox.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Copies what is written to {@code System.err} (where the tests' slf4j-simple writes, at warn and
 * above) while it is open, and still lets it through. In the test-jar, so that the other modules'
 * log tests read it the same way.
 */
public final class StandardErrorCapture implements AutoCloseable {

  private final PrintStream original = System.err;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  /** Starts copying. */
  public StandardErrorCapture() {
    OutputStream both =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (copy) {
              copy.write(b);
            }
            original.write(b);
          }

          @Override
          public void write(byte[] bytes, int offset, int length) {
            synchronized (copy) {
              copy.write(bytes, offset, length);
            }
            original.write(bytes, offset, length);
          }
        };
    System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
  }

  /**
   * Every line written so far.
   *
   * @return the non-empty lines, in the order they were written
   */
  public List<String> lines() {
    String written;
    synchronized (copy) {
      written = copy.toString(StandardCharsets.UTF_8);
    }
    return Arrays.stream(written.split("\\R")).filter(line -> !line.isEmpty()).toList();
  }

  /** Stops copying: {@code System.err} is what it was before. */
  @Override
  public void close() {
    System.setErr(original);
  }
}
