package dev.outbox.testkit.kill;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;

/**
 * Child JVMs of a kill test, one per slot, each a separate OS process running a main class on the
 * test's class path, with its standard output and error in a file of its own ({@code
 * <logDir>/<name><slot>-r<restart>.log}). A slot's process can be killed with SIGKILL and a
 * successor started under a new instance id ({@code <instanceIdPrefix><name><slot>-r<restart>}); a
 * process that exits on its own is recorded as a {@link Death} and restarted by {@link
 * #restartTheDead()}.
 *
 * <p>The main class gets the instance id as its first argument, then the fleet's {@link
 * Builder#arguments(List) arguments}; it prints its ready line with {@link ChildJvm#printReady}
 * once it works, and should call {@link ChildJvm#exitWithParent()}.
 */
public final class JvmFleet implements AutoCloseable {

  /**
   * One kill.
   *
   * @param instanceId the instance killed
   * @param pid its process id
   * @param upFor how long after its launch
   * @param readyFor how long after it printed its ready line
   * @param exitValue its exit value: 137 (128 + 9) for SIGKILL
   */
  public record Kill(
      String instanceId, long pid, Duration upFor, Duration readyFor, int exitValue) {

    /**
     * How long the process took from its launch to its ready line.
     *
     * @return {@code upFor - readyFor}
     */
    public Duration startedIn() {
      return upFor.minus(readyFor);
    }
  }

  /**
   * A process that exited without being killed.
   *
   * @param instanceId the instance
   * @param exitValue its exit value
   * @param tail the end of its output
   */
  public record Death(String instanceId, int exitValue, String tail) {}

  private final Builder options;
  private final Slot[] slots;
  private final List<Kill> kills = new ArrayList<>();
  private final List<Death> deaths = new ArrayList<>();
  private int restarts;

  private JvmFleet(Builder options) {
    this.options = options;
    this.slots = new Slot[options.size];
    try {
      Files.createDirectories(options.logDir);
      try (Stream<Path> files = Files.list(options.logDir)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A fleet running a main class.
   *
   * @param mainClass the class whose {@code main} each process runs
   * @return a builder with the defaults
   */
  public static Builder builder(Class<?> mainClass) {
    return new Builder(mainClass);
  }

  /** Starts a process in every slot. */
  public synchronized void startAll() {
    for (int slot = 0; slot < slots.length; slot++) {
      slots[slot] = launch(slot, 0);
    }
  }

  /**
   * Waits until every slot's process printed its ready line.
   *
   * @param timeout how long at most
   * @throws IllegalStateException when a process died or the time is up
   */
  public void awaitAllReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      boolean all = true;
      synchronized (this) {
        for (Slot slot : slots) {
          if (!slot.process.isAlive()) {
            throw new IllegalStateException(
                slot.instanceId + " exited with " + slot.process.exitValue() + ":\n" + slot.tail());
          }
          all &= slot.ready();
        }
      }
      if (all) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Not ready within " + timeout + ": " + this);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Records and restarts every process that exited although nobody killed it.
   *
   * @return the deaths found now
   */
  public synchronized List<Death> restartTheDead() {
    List<Death> found = new ArrayList<>();
    for (int i = 0; i < slots.length; i++) {
      Slot slot = slots[i];
      if (slot != null && !slot.process.isAlive()) {
        Death death = new Death(slot.instanceId, slot.process.exitValue(), slot.tail());
        found.add(death);
        deaths.add(death);
        restarts++;
        slots[i] = launch(i, slot.restart + 1);
      }
    }
    return found;
  }

  /**
   * Kills with SIGKILL one process that has been ready for at least {@code minReady} and that the
   * test allows, waits until it is gone, and starts its successor in the same slot.
   *
   * @param random chooses among the candidates
   * @param minReady how long a process must have run since its ready line to be chosen
   * @param allowed whether the process of an instance id may be killed now (asked last)
   * @return the kill, or {@code null} when no process qualifies
   * @throws IllegalStateException when the victim survives SIGKILL for ten seconds
   */
  public synchronized Kill killOneAndRestart(
      Random random, Duration minReady, Predicate<String> allowed) throws InterruptedException {
    List<Integer> candidates = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int i = 0; i < slots.length; i++) {
      if (slots[i].process.isAlive()
          && slots[i].ready()
          && now - slots[i].readyAt >= minReady.toMillis()
          && allowed.test(slots[i].instanceId)) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty()) {
      return null;
    }
    int index = candidates.get(random.nextInt(candidates.size()));
    Slot victim = slots[index];
    // Process.destroyForcibly() is SIGKILL on Linux: no shutdown hook, nothing released or sent.
    victim.process.destroyForcibly();
    if (!victim.process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(victim.instanceId + " survived SIGKILL");
    }
    Kill kill =
        new Kill(
            victim.instanceId,
            victim.process.pid(),
            Duration.ofMillis(now - victim.startedAt),
            Duration.ofMillis(now - victim.readyAt),
            victim.process.exitValue());
    kills.add(kill);
    restarts++;
    slots[index] = launch(index, victim.restart + 1);
    return kill;
  }

  /**
   * Stops every process with SIGTERM, so that each closes what it holds, and waits for them.
   *
   * @param timeout how long to wait for each
   * @return the instances that did not exit on their own within the time (then killed)
   */
  public synchronized List<String> stopGracefully(Duration timeout) throws InterruptedException {
    List<String> stubborn = new ArrayList<>();
    for (Slot slot : slots) {
      if (slot != null) {
        slot.process.destroy();
      }
    }
    for (Slot slot : slots) {
      if (slot != null && !slot.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        stubborn.add(slot.instanceId);
        slot.process.destroyForcibly();
      }
    }
    return stubborn;
  }

  /**
   * The kills so far.
   *
   * @return a copy, in kill order
   */
  public synchronized List<Kill> kills() {
    return List.copyOf(kills);
  }

  /**
   * The processes that exited on their own so far.
   *
   * @return a copy
   */
  public synchronized List<Death> deaths() {
    return List.copyOf(deaths);
  }

  /**
   * Processes started after a kill or a death.
   *
   * @return the count
   */
  public synchronized int restarts() {
    return restarts;
  }

  /**
   * The lines of every process's output that start with a prefix.
   *
   * @param prefix the start of the line
   * @return the lines, file by file
   */
  public List<String> lines(String prefix) {
    List<String> found = new ArrayList<>();
    for (Path file : logs()) {
      for (String line : read(file)) {
        if (line.startsWith(prefix)) {
          found.add(line);
        }
      }
    }
    return found;
  }

  /**
   * Lines of every process's output that are warnings or errors, for the report.
   *
   * @param max how many at most
   * @return the file name and line of each
   */
  public List<String> warnings(int max) {
    List<String> found = new ArrayList<>();
    for (Path file : logs()) {
      for (String line : read(file)) {
        if ((line.contains(" WARN ") || line.contains(" ERROR ") || line.contains("Exception"))
            && found.size() < max) {
          found.add(file.getFileName() + ": " + line);
        }
      }
    }
    return found;
  }

  /**
   * Logs a line for each kill so far: {@code killed <instance> (pid <pid>): started in <ms> ms,
   * killed after <ms> ms <doing>, exit value <value>}.
   *
   * @param log the test's logger
   * @param doing what the victim was doing since its ready line, {@code processing} for example
   */
  public void reportKills(Logger log, String doing) {
    kills()
        .forEach(
            kill ->
                log.info(
                    "  killed {} (pid {}): started in {} ms, killed after {} ms {}, exit value {}",
                    kill.instanceId(),
                    kill.pid(),
                    kill.startedIn().toMillis(),
                    kill.readyFor().toMillis(),
                    doing,
                    kill.exitValue()));
  }

  /**
   * Logs the {@link #warnings(int)} of the processes' output, under a heading {@code Warnings in
   * the <role> logs (first <n>):}, nothing when there are none.
   *
   * @param log the test's logger
   * @param role what the processes are, {@code processor} for example
   * @param max how many lines at most
   */
  public void reportWarnings(Logger log, String role, int max) {
    List<String> warnings = warnings(max);
    if (!warnings.isEmpty()) {
      log.info("Warnings in the {} logs (first {}):", role, warnings.size());
      warnings.forEach(line -> log.info("  {}", line));
    }
  }

  /** Kills whatever still runs. */
  @Override
  public synchronized void close() {
    for (Slot slot : slots) {
      if (slot != null && slot.process.isAlive()) {
        slot.process.destroyForcibly();
        try {
          slot.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Each instance and whether it is starting, running or dead. */
  @Override
  public synchronized String toString() {
    StringBuilder text = new StringBuilder();
    for (Slot slot : slots) {
      if (slot != null) {
        text.append(slot.instanceId)
            .append(slot.process.isAlive() ? (slot.ready() ? " running" : " starting") : " dead")
            .append("; ");
      }
    }
    return text.toString();
  }

  private List<Path> logs() {
    try (Stream<Path> files = Files.list(options.logDir)) {
      return files.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return List.of("(could not read " + file + ": " + e + ")");
    }
  }

  private Slot launch(int slot, int restart) {
    String name = options.name + slot + "-r" + restart;
    String instanceId = options.instanceIdPrefix + name;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A small JVM that starts fast: the test's servers, its load and the other children share
    // the cores.
    command.add("-Xmx" + options.maxHeapMegabytes + "m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(options.mainClass.getName());
    command.add(instanceId);
    command.addAll(options.arguments);
    File log = options.logDir.resolve(name + ".log").toFile();
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log))
              .start();
      return new Slot(
          instanceId,
          restart,
          process,
          log.toPath(),
          System.currentTimeMillis(),
          options.readyLine);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + instanceId, e);
    }
  }

  /** What a fleet runs; every setter validates its value. */
  public static final class Builder {

    /** The default {@link #size(int)}. */
    public static final int DEFAULT_SIZE = 2;

    /** The default {@link #maxHeapMegabytes(int)}. */
    public static final int DEFAULT_MAX_HEAP_MEGABYTES = 256;

    private final Class<?> mainClass;
    private int size = DEFAULT_SIZE;
    private Path logDir;
    private String name = "p";
    private String instanceIdPrefix = "";
    private int maxHeapMegabytes = DEFAULT_MAX_HEAP_MEGABYTES;
    private String readyLine;
    private List<String> arguments = List.of();

    private Builder(Class<?> mainClass) {
      this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
    }

    /**
     * How many processes run at once; default {@value #DEFAULT_SIZE}.
     *
     * @param size at least 1
     * @return this builder
     */
    public Builder size(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("size must be >= 1, but was " + size);
      }
      this.size = size;
      return this;
    }

    /**
     * Where each process writes its output; required. The fleet empties it of earlier runs' logs.
     *
     * @param logDir a directory, created if missing
     * @return this builder
     */
    public Builder logDir(Path logDir) {
      this.logDir = Objects.requireNonNull(logDir, "logDir");
      return this;
    }

    /**
     * The start of each process's name {@code <name><slot>-r<restart>}, which names its log file;
     * default {@code p}.
     *
     * @param name not blank
     * @return this builder
     */
    public Builder name(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, but was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /**
     * What each instance id starts with, before the process's name; default empty.
     *
     * @param instanceIdPrefix the prefix, {@code kill-3fa2c1-} for example
     * @return this builder
     */
    public Builder instanceIdPrefix(String instanceIdPrefix) {
      this.instanceIdPrefix = Objects.requireNonNull(instanceIdPrefix, "instanceIdPrefix");
      return this;
    }

    /**
     * Each process's maximum heap ({@code -Xmx}); default {@value #DEFAULT_MAX_HEAP_MEGABYTES}.
     *
     * @param maxHeapMegabytes at least 16
     * @return this builder
     */
    public Builder maxHeapMegabytes(int maxHeapMegabytes) {
      if (maxHeapMegabytes < 16) {
        throw new IllegalArgumentException(
            "maxHeapMegabytes must be >= 16, but was " + maxHeapMegabytes);
      }
      this.maxHeapMegabytes = maxHeapMegabytes;
      return this;
    }

    /**
     * The start of the line a process prints with {@link ChildJvm#printReady} once it works;
     * required.
     *
     * @param readyLine not blank
     * @return this builder
     */
    public Builder readyLine(String readyLine) {
      if (readyLine == null || readyLine.isBlank()) {
        throw new IllegalArgumentException(
            "readyLine must not be blank, but was '" + readyLine + "'");
      }
      this.readyLine = readyLine;
      return this;
    }

    /**
     * The main class's arguments after the instance id; default none.
     *
     * @param arguments the same for every process
     * @return this builder
     */
    public Builder arguments(List<String> arguments) {
      this.arguments = List.copyOf(arguments);
      return this;
    }

    /**
     * A fleet, nothing started yet; its log directory created and emptied.
     *
     * @return the fleet
     * @throws IllegalStateException when the log directory or the ready line is missing
     */
    public JvmFleet build() {
      if (logDir == null || readyLine == null) {
        throw new IllegalStateException(
            "logDir and readyLine are required, but were " + logDir + " and " + readyLine);
      }
      return new JvmFleet(this);
    }
  }

  private static final class Slot {
    final String instanceId;
    final int restart;
    final Process process;
    final Path log;
    final long startedAt;
    final String readyLine;
    long readyAt;

    Slot(
        String instanceId,
        int restart,
        Process process,
        Path log,
        long startedAt,
        String readyLine) {
      this.instanceId = instanceId;
      this.restart = restart;
      this.process = process;
      this.log = log;
      this.startedAt = startedAt;
      this.readyLine = readyLine;
    }

    /** Whether the process printed its ready line, and when (its clock). */
    boolean ready() {
      if (readyAt == 0) {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
          lines
              .filter(line -> line.startsWith(readyLine))
              .findFirst()
              .ifPresent(line -> readyAt = ChildJvm.readyAt(line));
        } catch (IOException | RuntimeException e) {
          return false; // not written yet, or half a line
        }
      }
      return readyAt != 0;
    }

    String tail() {
      List<String> lines = read(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
  }
}
