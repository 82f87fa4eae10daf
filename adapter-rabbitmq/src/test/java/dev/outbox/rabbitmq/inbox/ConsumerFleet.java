package dev.outbox.rabbitmq.inbox;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Consumer JVMs ({@link InboxConsumer}), one per slot, each a separate OS process on the test class
 * path, with its standard output and error in a file of its own ({@code
 * <logDir>/c<slot>-r<restart>.log}). A slot's process can be killed with SIGKILL and restarted
 * under a new instance id ({@code c<slot>-r<restart>}); a process that exits on its own is recorded
 * as a {@link Death} and restarted too, so that the run goes on and the test can fail on it.
 */
public final class ConsumerFleet implements AutoCloseable {

  /**
   * One kill.
   *
   * @param instanceId the instance killed
   * @param pid its process id
   * @param upFor how long after its launch
   * @param consumingFor how long after it printed {@link InboxConsumer#READY}
   * @param exitValue its exit value: 137 (128 + 9) for SIGKILL
   */
  public record Kill(
      String instanceId, long pid, Duration upFor, Duration consumingFor, int exitValue) {}

  /**
   * A consumer that exited without being killed.
   *
   * @param instanceId the instance
   * @param exitValue its exit value
   * @param tail the end of its output
   */
  public record Death(String instanceId, int exitValue, String tail) {}

  private final List<String> consumerArgs;
  private final Path logDir;
  private final Slot[] slots;
  private final List<Kill> kills = new ArrayList<>();
  private final List<Death> deaths = new ArrayList<>();
  private int restarts;

  /**
   * A fleet, nothing started yet.
   *
   * @param size how many consumers run at once
   * @param logDir where each process writes its output; emptied of earlier runs' logs
   * @param consumerArgs {@link InboxConsumer}'s arguments after the instance id
   */
  public ConsumerFleet(int size, Path logDir, List<String> consumerArgs) {
    this.slots = new Slot[size];
    this.logDir = logDir;
    this.consumerArgs = List.copyOf(consumerArgs);
    try {
      Files.createDirectories(logDir);
      try (Stream<Path> files = Files.list(logDir)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a process in every slot. */
  public synchronized void startAll() {
    for (int slot = 0; slot < slots.length; slot++) {
      slots[slot] = launch(slot, 0);
    }
  }

  /**
   * Waits until every slot's process printed {@link InboxConsumer#READY}.
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
        throw new IllegalStateException("Consumers not ready within " + timeout + ": " + this);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Records and restarts every consumer that exited although nobody killed it.
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
   * Kills with SIGKILL one consumer that has been consuming for at least {@code minConsuming} and
   * is handling messages right now, waits until it is gone, and starts its successor in the same
   * slot.
   *
   * @param random chooses among the candidates
   * @param minConsuming how long a consumer must have been consuming to be chosen
   * @param handling whether the consumer of an instance id is handling messages now
   * @return the kill, or {@code null} when no consumer qualifies
   */
  public synchronized Kill killOneAndRestart(
      Random random, Duration minConsuming, Predicate<String> handling)
      throws InterruptedException {
    List<Integer> candidates = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int i = 0; i < slots.length; i++) {
      if (slots[i].process.isAlive()
          && slots[i].ready()
          && now - slots[i].readyAt >= minConsuming.toMillis()
          && handling.test(slots[i].instanceId)) {
        candidates.add(i);
      }
    }
    if (candidates.isEmpty()) {
      return null;
    }
    int index = candidates.get(random.nextInt(candidates.size()));
    Slot victim = slots[index];
    // Process.destroyForcibly() is SIGKILL on Linux: no shutdown hook, no ack, no rollback sent.
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
   * Stops every process with SIGTERM, so that each closes its connection, and waits for them.
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
   * The consumers that exited on their own so far.
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
   * The lines of every consumer's output that start with a prefix.
   *
   * @param prefix the start of the line, {@link InboxConsumer#OUTCOME} for example
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
   * Lines of every consumer's output that are warnings or errors, for the report.
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
    try (Stream<Path> files = Files.list(logDir)) {
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
    String instanceId = "c" + slot + "-r" + restart;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A small JVM that starts fast: two cores are shared by the broker, PostgreSQL, the writers,
    // the outbox processor and the consumers.
    command.add("-Xmx128m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(InboxConsumer.class.getName());
    command.add(instanceId);
    command.addAll(consumerArgs);
    File log = logDir.resolve("c" + slot + "-r" + restart + ".log").toFile();
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log))
              .start();
      return new Slot(instanceId, restart, process, log.toPath(), System.currentTimeMillis());
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + instanceId, e);
    }
  }

  private static final class Slot {
    final String instanceId;
    final int restart;
    final Process process;
    final Path log;
    final long startedAt;
    long readyAt;

    Slot(String instanceId, int restart, Process process, Path log, long startedAt) {
      this.instanceId = instanceId;
      this.restart = restart;
      this.process = process;
      this.log = log;
      this.startedAt = startedAt;
    }

    /** Whether the process printed {@link InboxConsumer#READY}, and when (its clock). */
    boolean ready() {
      if (readyAt == 0) {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
          lines
              .filter(line -> line.startsWith(InboxConsumer.READY))
              .findFirst()
              .ifPresent(
                  line -> readyAt = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)));
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
