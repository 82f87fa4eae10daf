package dev.outbox.kafka.kill;

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

/**
 * Processor JVMs ({@link KillableProcessor}), one per slot, each a separate OS process on the test
 * class path, with its standard output and error in a file of its own ({@code
 * <logDir>/p<slot>-r<restart>.log}). A slot's process can be killed with SIGKILL and restarted
 * under a new instance id ({@code <prefix>-p<slot>-r<restart>}).
 */
public final class ProcessorFleet implements AutoCloseable {

  /**
   * One kill.
   *
   * @param instanceId the instance killed
   * @param pid its process id
   * @param upFor how long after its launch
   * @param processingFor how long after its outbox started
   * @param exitValue its exit value: 137 (128 + 9) for SIGKILL
   */
  public record Kill(
      String instanceId, long pid, Duration upFor, Duration processingFor, int exitValue) {}

  private final List<String> processorArgs;
  private final String prefix;
  private final Path logDir;
  private final Slot[] slots;
  private final List<Kill> kills = new ArrayList<>();
  private int restarts;

  /**
   * A fleet, nothing started yet.
   *
   * @param size how many processors run at once
   * @param prefix the start of every instance id
   * @param logDir where each process writes its output
   * @param processorArgs {@link KillableProcessor}'s arguments after the instance id is put in at
   *     index 3
   */
  public ProcessorFleet(int size, String prefix, Path logDir, List<String> processorArgs) {
    this.slots = new Slot[size];
    this.prefix = prefix;
    this.logDir = logDir;
    this.processorArgs = List.copyOf(processorArgs);
    try {
      Files.createDirectories(logDir);
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
   * Waits until every slot's process printed {@link KillableProcessor#READY}.
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
                slot.instanceId + " exited with " + slot.process.exitValue() + ": " + slot.tail());
          }
          all &= slot.ready();
        }
      }
      if (all) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Processors not ready within " + timeout + ": " + this);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Kills one processor that has been running (since it printed {@link KillableProcessor#READY})
   * for at least {@code minProcessing} with SIGKILL, waits until it is gone, and starts its
   * successor in the same slot.
   *
   * @param random chooses the slot
   * @param minProcessing how long a processor must have run to be chosen
   * @return the kill, or {@code null} when no processor has been running that long
   */
  public synchronized Kill killOneAndRestart(Random random, Duration minProcessing)
      throws InterruptedException {
    List<Integer> running = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int i = 0; i < slots.length; i++) {
      if (slots[i].process.isAlive()
          && slots[i].ready()
          && now - slots[i].readyAt >= minProcessing.toMillis()) {
        running.add(i);
      }
    }
    if (running.isEmpty()) {
      return null;
    }
    int index = running.get(random.nextInt(running.size()));
    Slot victim = slots[index];
    // Process.destroyForcibly() is SIGKILL on Linux: no shutdown hook, no release of leases.
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
   * Stops every process with SIGTERM, so that each closes its outbox, and waits for them.
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
   * Processes started after a kill.
   *
   * @return the count
   */
  public synchronized int restarts() {
    return restarts;
  }

  /**
   * Lines of every process's log that are warnings or errors, for the report.
   *
   * @return the file name and line of each, at most {@code max}
   */
  public List<String> warnings(int max) {
    List<String> found = new ArrayList<>();
    try (var files = Files.list(logDir)) {
      for (Path file : files.sorted().toList()) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if ((line.contains(" WARN ") || line.contains(" ERROR ") || line.contains("Exception"))
              && found.size() < max) {
            found.add(file.getFileName() + ": " + line);
          }
        }
      }
    } catch (IOException e) {
      found.add("could not read the logs: " + e);
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

  private Slot launch(int slot, int restart) {
    String instanceId = prefix + "-p" + slot + "-r" + restart;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A small JVM that starts fast: two cores are shared by the broker, PostgreSQL, the writers
    // and up to two processors starting at once.
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KillableProcessor.class.getName());
    List<String> args = new ArrayList<>(processorArgs);
    args.add(3, instanceId);
    command.addAll(args);
    File log = logDir.resolve("p" + slot + "-r" + restart + ".log").toFile();
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

    /** Whether the process printed {@link KillableProcessor#READY}, and when (its clock). */
    boolean ready() {
      if (readyAt == 0) {
        try {
          for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.startsWith(KillableProcessor.READY)) {
              readyAt = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            }
          }
        } catch (IOException | RuntimeException e) {
          return false; // not written yet, or half a line
        }
      }
      return readyAt != 0;
    }

    String tail() {
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }
  }
}
