package dev.outbox.nats;

import dev.outbox.nats.internal.Subjects;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The JetStream stream the publisher may create at start. An immutable value: {@link #builder()},
 * {@link #toBuilder()}; every setter validates and names the field and the bad value.
 *
 * <p>With {@link #create()} off (the default) the publisher expects an operator-managed stream that
 * covers its subjects; a message whose subject no stream covers fails with "no stream for subject
 * ...", as a retryable failure, never a silent drop.
 *
 * <pre>{@code
 * NatsStreamOptions.builder().create(true).name("ORDERS").duplicateWindow(Duration.ofMinutes(10))
 *     .build();
 * }</pre>
 */
public final class NatsStreamOptions {

  /** Default of {@link #name()}. */
  public static final String DEFAULT_NAME = "OUTBOX";

  /** Default of {@link #storage()}. */
  public static final Storage DEFAULT_STORAGE = Storage.FILE;

  /** Default of {@link #duplicateWindow()}: JetStream's own default. */
  public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);

  /** Default of {@link #replicas()}. */
  public static final int DEFAULT_REPLICAS = 1;

  private static final Pattern NAME = Pattern.compile("[^\\s.*>/\\\\]{1,255}");
  private static final NatsStreamOptions DEFAULTS = builder().build();

  /** Where the stream keeps its messages. */
  public enum Storage {
    /** On disk: survives a server restart. */
    FILE,
    /** In memory: lost when the server stops. */
    MEMORY
  }

  private final boolean create;
  private final String name;
  private final List<String> subjects;
  private final Storage storage;
  private final Duration duplicateWindow;
  private final int replicas;

  private NatsStreamOptions(Builder builder) {
    this.create = builder.create;
    this.name = builder.name;
    this.subjects = builder.subjects;
    this.storage = builder.storage;
    this.duplicateWindow = builder.duplicateWindow;
    this.replicas = builder.replicas;
  }

  /**
   * A builder holding the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The defaults: no stream is created.
   *
   * @return the default options
   */
  public static NatsStreamOptions defaults() {
    return DEFAULTS;
  }

  /**
   * A builder holding these options.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Whether the publisher creates the stream at start when it does not exist. An existing stream is
   * left as it is.
   *
   * @return default {@code false}
   */
  public boolean create() {
    return create;
  }

  /**
   * The stream's name.
   *
   * @return default {@value #DEFAULT_NAME}
   */
  public String name() {
    return name;
  }

  /**
   * The subjects the created stream captures.
   *
   * @return default empty, meaning {@code <subjectPrefix>.>}
   */
  public List<String> subjects() {
    return subjects;
  }

  /**
   * The created stream's storage.
   *
   * @return default {@link Storage#FILE}
   */
  public Storage storage() {
    return storage;
  }

  /**
   * How long the created stream remembers message ids to drop re-sent messages. A message re-sent
   * later than this after its first publish is stored again (consumers still de-duplicate on the
   * id).
   *
   * @return default 2 min
   */
  public Duration duplicateWindow() {
    return duplicateWindow;
  }

  /**
   * The created stream's replicas (clustered servers only).
   *
   * @return default {@value #DEFAULT_REPLICAS}
   */
  public int replicas() {
    return replicas;
  }

  @Override
  public String toString() {
    return "NatsStreamOptions[create="
        + create
        + ", name="
        + name
        + ", subjects="
        + subjects
        + ", storage="
        + storage
        + ", duplicateWindow="
        + duplicateWindow
        + ", replicas="
        + replicas
        + ']';
  }

  /** Builds {@link NatsStreamOptions}; every setter validates its argument. */
  public static final class Builder {
    private boolean create;
    private String name = DEFAULT_NAME;
    private List<String> subjects = List.of();
    private Storage storage = DEFAULT_STORAGE;
    private Duration duplicateWindow = DEFAULT_DUPLICATE_WINDOW;
    private int replicas = DEFAULT_REPLICAS;

    private Builder() {}

    private Builder(NatsStreamOptions options) {
      create = options.create;
      name = options.name;
      subjects = options.subjects;
      storage = options.storage;
      duplicateWindow = options.duplicateWindow;
      replicas = options.replicas;
    }

    /**
     * Sets {@link NatsStreamOptions#create()}.
     *
     * @param create whether to create a missing stream at start
     * @return this builder
     */
    public Builder create(boolean create) {
      this.create = create;
      return this;
    }

    /**
     * Sets {@link NatsStreamOptions#name()}.
     *
     * @param name 1 to 255 characters, no whitespace, {@code .}, {@code *}, {@code >}, {@code /} or
     *     {@code \}
     * @return this builder
     */
    public Builder name(String name) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "stream.name must be 1-255 characters without whitespace, '.', '*', '>', '/' or '\\',"
                + " but was "
                + (name == null ? "null" : '"' + name + '"'));
      }
      this.name = name;
      return this;
    }

    /**
     * Sets {@link NatsStreamOptions#subjects()}.
     *
     * @param subjects subjects or wildcards ({@code events.>}); empty for {@code <subjectPrefix>.>}
     * @return this builder
     */
    public Builder subjects(List<String> subjects) {
      if (subjects == null) {
        throw new IllegalArgumentException("stream.subjects must not be null");
      }
      for (String subject : subjects) {
        Subjects.check("stream.subjects", subject, true);
      }
      this.subjects = List.copyOf(subjects);
      return this;
    }

    /**
     * Sets {@link NatsStreamOptions#storage()}.
     *
     * @param storage not null
     * @return this builder
     */
    public Builder storage(Storage storage) {
      if (storage == null) {
        throw new IllegalArgumentException("stream.storage must be FILE or MEMORY, but was null");
      }
      this.storage = storage;
      return this;
    }

    /**
     * Sets {@link NatsStreamOptions#duplicateWindow()}.
     *
     * @param window &gt; 0
     * @return this builder
     */
    public Builder duplicateWindow(Duration window) {
      if (window == null || window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("stream.duplicateWindow must be > 0, but was " + window);
      }
      this.duplicateWindow = window;
      return this;
    }

    /**
     * Sets {@link NatsStreamOptions#replicas()}.
     *
     * @param replicas between 1 and 5
     * @return this builder
     */
    public Builder replicas(int replicas) {
      if (replicas < 1 || replicas > 5) {
        throw new IllegalArgumentException(
            "stream.replicas must be between 1 and 5, but was " + replicas);
      }
      this.replicas = replicas;
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the options
     */
    public NatsStreamOptions build() {
      return new NatsStreamOptions(this);
    }
  }
}
