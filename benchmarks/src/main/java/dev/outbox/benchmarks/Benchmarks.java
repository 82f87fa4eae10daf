package dev.outbox.benchmarks;

import dev.outbox.benchmarks.internal.BenchDatabase;
import dev.outbox.benchmarks.internal.CatchUp;
import dev.outbox.benchmarks.internal.Figures;
import dev.outbox.benchmarks.internal.HeapDrain;
import dev.outbox.benchmarks.internal.InboxSuite;
import dev.outbox.benchmarks.internal.KafkaBench;
import dev.outbox.benchmarks.internal.NatsBench;
import dev.outbox.benchmarks.internal.PathSuite;
import dev.outbox.benchmarks.internal.RabbitBench;
import dev.outbox.benchmarks.internal.Relay;
import dev.outbox.benchmarks.internal.Scale;
import dev.outbox.benchmarks.internal.ThroughputSuite;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs every benchmark against real servers (PostgreSQL, RabbitMQ and NATS on 127.0.0.1, Kafka in
 * this JVM), prints the Markdown table and writes {@value #RESULTS}.
 *
 * <pre>
 * bin/run-benchmarks           # the full run, 15-24 minutes on 2 cores
 * bin/run-benchmarks --quick   # small counts, under 2 minutes (CI)
 * bin/run-benchmarks --only kafka,latency   # some sections (the table lists what they measured)
 * bin/run-benchmarks --only inbox   # the consumer side: Inbox.apply against the handler alone
 * </pre>
 */
public final class Benchmarks {

  /** Where the figures are written, relative to the working directory of the build. */
  public static final String RESULTS = "benchmarks/target/benchmark-results.json";

  private static final List<Server> SERVERS =
      List.of(
          new Server("PostgreSQL", 5432, "pg_ctlcluster <version> main start (database test)"),
          new Server("RabbitMQ", 5672, "rabbitmq-server -detached (guest/guest)"),
          new Server("NATS", 4222, "nats-server -js"));

  private record Server(String name, int port, String howToStart) {}

  /** The sections, in the order a run takes them; {@code --only} picks some. */
  private static final Set<String> SECTIONS =
      new LinkedHashSet<>(
          List.of(
              "kafka",
              "rabbitmq",
              "nats",
              "write",
              "latency",
              "claims",
              "heads",
              "aggregates",
              "catchup",
              "outage",
              "inbox"));

  private static final String USAGE =
      "usage: Benchmarks [--quick] [--output file.json] [--only section,...] where a section is one"
          + " of "
          + SECTIONS;

  private Benchmarks() {}

  /**
   * Runs the benchmarks and exits: 0 when they ran, 1 when one failed, 2 on bad arguments or a
   * missing server.
   *
   * @param args {@code --quick} for the quick run, {@code --output <file>} for another JSON file,
   *     {@code --only <sections>} for some sections
   */
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals(HeapDrain.CHILD)) {
      System.exit(child(args));
    }
    if (args.length == 3 && args[0].equals(CatchUp.CHILD)) {
      System.exit(CatchUp.processHere(args[1], args[2]));
    }
    System.exit(run(args));
  }

  /**
   * Runs the benchmarks on this thread.
   *
   * @param args as for {@link #main}
   * @return the exit code
   */
  public static int run(String... args) {
    boolean quick = false;
    Path output = Path.of(RESULTS);
    Set<String> only = new HashSet<>();
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if ((option.equals("--output") || option.equals("--only")) && i + 1 == args.length) {
        System.err.println(USAGE + "; " + option + " needs a value");
        return 2;
      }
      switch (option) {
        case "--quick" -> quick = true;
        case "--output" -> output = Path.of(args[++i]);
        case "--only" -> only.addAll(List.of(args[++i].split(",")));
        default -> {
          System.err.println(USAGE + "; got " + option);
          return 2;
        }
      }
    }
    Set<String> unknown = new LinkedHashSet<>(only);
    unknown.removeAll(SECTIONS);
    if (!unknown.isEmpty()) {
      System.err.println(USAGE + "; unknown section " + String.join(",", unknown));
      return 2;
    }
    for (Server server : SERVERS) {
      if (!reachable(server.port())) {
        System.err.printf(
            "%s is not reachable at 127.0.0.1:%d. Start it with: %s%n",
            server.name(), server.port(), server.howToStart());
        return 2;
      }
    }
    Figures figures = new Figures();
    long start = System.nanoTime();
    runAll(quick ? Scale.QUICK : Scale.FULL, figures, only.isEmpty() ? SECTIONS : only);
    System.out.printf(
        Locale.ROOT,
        "%nFinished in %.0f s; load average %s%n%n",
        (System.nanoTime() - start) / 1e9,
        loadAverage());
    System.out.println(figures.markdown());
    figures.writeJson(output);
    System.out.println("Written to " + output.toAbsolutePath());
    return 0;
  }

  private static void runAll(Scale scale, Figures figures, Set<String> sections) {
    try (BenchDatabase db = BenchDatabase.open(true);
        KafkaBench kafka = KafkaBench.start();
        RabbitBench rabbit = RabbitBench.start();
        NatsBench nats = NatsBench.start()) {
      System.out.printf(
          "Outbox benchmarks (%s): %d cores, load average %s, Java %s%nPostgreSQL: %s%nfsync=%s%n"
              + "Kafka in this JVM at %s%n",
          scale.quick() ? "quick" : "full",
          Runtime.getRuntime().availableProcessors(),
          loadAverage(),
          Runtime.version(),
          db.version(),
          db.fsync(),
          kafka.bootstrapServers());
      ThroughputSuite throughput = new ThroughputSuite(scale, db, kafka, figures);
      PathSuite path = new PathSuite(scale, db, kafka, figures, Benchmarks.class.getName());
      Map<String, Runnable> runs = new LinkedHashMap<>();
      runs.put("kafka", throughput::kafkaRelay);
      runs.put("rabbitmq", () -> throughput.brokerRelay(rabbit));
      runs.put("nats", () -> throughput.brokerRelay(nats));
      runs.put("write", path::writeOverhead);
      runs.put("latency", path::latency);
      runs.put("claims", path::claimsAndHeap);
      runs.put("heads", path::leasedClaims);
      runs.put("aggregates", throughput::aggregateSpread);
      runs.put("catchup", path::catchUp);
      runs.put("outage", () -> throughput.outageRecovery(List.of(kafka, rabbit, nats)));
      runs.put("inbox", new InboxSuite(scale, db, figures)::run);
      runs.forEach(
          (section, benchmark) -> {
            if (sections.contains(section)) {
              timed(section, benchmark);
            }
          });
    }
  }

  private static void timed(String section, Runnable benchmark) {
    System.out.println("== " + section);
    long start = System.nanoTime();
    benchmark.run();
    System.out.printf(
        Locale.ROOT,
        "== %s took %.0f s (load average %s)%n",
        section,
        (System.nanoTime() - start) / 1e9,
        loadAverage());
  }

  /** The child JVM of {@code drain_1m_heap_256m}: drains the outbox table to the parent's Kafka. */
  private static int child(String[] args) {
    try {
      long events = Long.parseLong(args[2]);
      Relay.Run run = HeapDrain.drainHere(args[1], events);
      Runtime runtime = Runtime.getRuntime();
      System.out.printf(
          Locale.ROOT,
          "drained %d events at %.0f events/s with max heap %d MB (%d MB used at the end); %s%n",
          run.events(),
          run.rate(),
          runtime.maxMemory() >> 20,
          (runtime.totalMemory() - runtime.freeMemory()) >> 20,
          run.profile());
      return run.events() >= events ? 0 : 1;
    } catch (RuntimeException | OutOfMemoryError e) {
      System.out.println("drain failed: " + e);
      return 1;
    }
  }

  /** The 1, 5 and 15 minute load averages, where Linux shows them: other work on the machine. */
  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static boolean reachable(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
