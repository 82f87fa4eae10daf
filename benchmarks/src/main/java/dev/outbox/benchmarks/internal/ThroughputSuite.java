package dev.outbox.benchmarks.internal;

import dev.outbox.spi.EventPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The relay benchmarks: throughput to each broker against its ceilings. Each ceiling is measured in
 * the same run right before the figure it bounds: every measured round runs the ceilings, then the
 * relay, and the ratios are the medians of the rounds' ratios. Also the recovery from a broker
 * outage ({@link #outageRecovery}).
 */
public final class ThroughputSuite {

  private static final String KAFKA_BOUND =
      "bare producer with the adapter's settings: 1 request in flight, linger 5 ms";

  private final Scale scale;
  private final BenchDatabase db;
  private final KafkaBench kafka;
  private final Figures figures;

  /**
   * A suite.
   *
   * @param scale the counts
   * @param db PostgreSQL
   * @param kafka the broker in this JVM
   * @param figures where the figures go
   */
  public ThroughputSuite(Scale scale, BenchDatabase db, KafkaBench kafka, Figures figures) {
    this.scale = scale;
    this.db = db;
    this.kafka = kafka;
    this.figures = figures;
  }

  /** Relay throughput to Kafka with the database's and the producer's ceilings. */
  public void kafkaRelay() {
    DbCeiling dbCeiling = new DbCeiling(db);
    Relay relay = new Relay(db);
    List<double[]> rounds =
        rounds(
            "kafka relay",
            size ->
                new double[] {
                  dbCeiling.run(size, scale.aggregates()),
                  kafka.ceiling(size, scale.aggregates()),
                  drain(relay, kafka::publisher, KafkaBench.TOPIC, size, scale.aggregates())
                });
    figures.add(
        "db_ceiling_rows_per_s",
        median(rounds, r -> r[0]),
        "rows/s",
        "",
        "PostgreSQL commit (fsync) per 100-row batch, one thread");
    figures.add("kafka_ceiling_msgs_per_s", median(rounds, r -> r[1]), "msgs/s", "", KAFKA_BOUND);
    figures.add(
        "relay_kafka_events_per_s", median(rounds, r -> r[2]), "events/s", "", "see ratios");
    figures.add(
        "relay_vs_db_ceiling", median(rounds, r -> r[2] / r[0]), "ratio", ">= 0.7", "see note");
    figures.add(
        "relay_vs_kafka_ceiling", median(rounds, r -> r[2] / r[1]), "ratio", "", "see note");
  }

  /**
   * Relay throughput to Kafka with the backlog over few, the usual and many aggregates: each round
   * drains the same number of events over {@link Scale#fewAggregates()} (10), {@link
   * Scale#aggregates()} (1,000) and {@link Scale#manyAggregates()} (100,000) aggregates, as {@link
   * #kafkaRelay} drains them, and the ratios are the medians of the rounds' ratios. The figures
   * keep their names in the quick run, whose counts are smaller.
   */
  public void aggregateSpread() {
    Relay relay = new Relay(db);
    int few = scale.fewAggregates();
    int usual = scale.aggregates();
    int many = scale.manyAggregates();
    List<double[]> rounds =
        rounds(
            "kafka relay over " + few + ", " + usual + " and " + many + " aggregates",
            size ->
                new double[] {
                  drain(relay, kafka::publisher, KafkaBench.TOPIC, size, few),
                  drain(relay, kafka::publisher, KafkaBench.TOPIC, size, usual),
                  drain(relay, kafka::publisher, KafkaBench.TOPIC, size, many)
                });
    String method =
        String.format(
            "%,d committed events over %%,d aggregates, default options, start() to last ack",
            scale.backlog());
    figures.add(
        "relay_kafka_10_aggregates_events_per_s",
        median(rounds, r -> r[0]),
        "events/s",
        "",
        String.format(method, few));
    figures.add(
        "relay_kafka_1000_aggregates_events_per_s",
        median(rounds, r -> r[1]),
        "events/s",
        "",
        String.format(method, usual) + "; relay_kafka_events_per_s, in this section's rounds");
    figures.add(
        "relay_kafka_100k_aggregates_events_per_s",
        median(rounds, r -> r[2]),
        "events/s",
        "",
        String.format(method, Math.min(many, scale.backlog())));
    figures.add(
        "relay_10_vs_1000_aggregates",
        median(rounds, r -> r[0] / r[1]),
        "ratio",
        ">= 0.25",
        "median of the rounds' ratios");
    figures.add(
        "relay_100k_vs_1000_aggregates",
        median(rounds, r -> r[2] / r[1]),
        "ratio",
        "",
        "diagnostic: median of the rounds' ratios");
  }

  /**
   * Relay throughput to a broker with its bare client's ceiling.
   *
   * @param broker RabbitMQ or NATS
   */
  public void brokerRelay(BareClientBroker broker) {
    Relay relay = new Relay(db);
    List<double[]> rounds =
        rounds(
            broker.name() + " relay",
            size -> {
              double ceiling = broker.ceiling(size, scale.aggregates());
              double rate =
                  drain(relay, broker::publisher, broker.aggregateType(), size, scale.aggregates());
              broker.purge();
              return new double[] {ceiling, rate};
            });
    addBrokerFigures(broker.name(), rounds, broker.ceilingBound());
  }

  /**
   * The recovery from an outage longer than the retry budget, on each broker in turn ({@link
   * OutageRecovery}): a warm-up run on a tenth of the backlog with a shorter cut (none in the quick
   * run), then the measured runs; the figures are their medians, the attempts and dead letters
   * their highest. Fails when a run left a dead letter.
   *
   * @param brokers Kafka, RabbitMQ and NATS, each behind its proxy
   */
  public void outageRecovery(List<ProxiedBroker> brokers) {
    OutageRecovery outage = new OutageRecovery(db);
    int events = scale.outageBacklog();
    int aggregates = scale.outageAggregates();
    Duration cut = scale.outageCut();
    Duration cap = OutageRecovery.CAP;
    for (ProxiedBroker broker : brokers) {
      String name = broker.name();
      if (!scale.outageWarmUpCut().isZero()) {
        System.out.printf(
            "  %s outage: warm-up (%d events, cut %d s)%n",
            name, events / 10, scale.outageWarmUpCut().toSeconds());
        checked(
            name,
            outage.run(broker, events / 10, aggregates, scale.outageWarmUpCut(), cap),
            "warm-up");
      }
      List<double[]> rounds = new ArrayList<>();
      int capped = 0;
      for (int r = 1; r <= scale.outageRuns(); r++) {
        System.out.printf(
            "  %s outage: run %d (%,d events over %,d aggregates, cut %d s)%n",
            name, r, events, aggregates, cut.toSeconds());
        OutageRecovery.Result result =
            checked(name, outage.run(broker, events, aggregates, cut, cap), "run " + r);
        capped += result.recovered() ? 0 : 1;
        rounds.add(
            new double[] {
              result.seconds(),
              result.firstAckSeconds(),
              result.callsDuringCut(),
              result.maxAttemptsAtReturn(),
              result.deadLetters(),
              result.drainRate(),
              result.attemptsCounted()
            });
      }
      String runs = scale.outageRuns() == 1 ? "one run" : "median of " + scale.outageRuns();
      figures.add(
          "recovery_s_after_outage_" + name,
          median(rounds, r -> r[0]),
          "s",
          name.equals("kafka") ? "<= 2" : "",
          (capped == 0
                  ? ""
                  : String.format(
                      "FAILED, %d of %d runs hit the cap of %d s; ",
                      capped, rounds.size(), cap.toSeconds()))
              + String.format(
                  Locale.ROOT,
                  "%,d pending over %,d aggregates, broker cut %d s through a TcpProxy (retry"
                      + " budget %d x %d ms); its return -> < %d pending; %s",
                  events,
                  aggregates,
                  cut.toSeconds(),
                  OutageRecovery.MAX_ATTEMPTS,
                  OutageRecovery.RETRY_MS,
                  OutageRecovery.CAUGHT_UP,
                  runs));
      figures.add(
          "outage_first_ack_s_" + name,
          median(rounds, r -> r[1]),
          "s",
          "",
          "diagnostic: the broker's return -> first acknowledgement; " + runs);
      figures.add(
          "outage_drain_events_per_s_" + name,
          median(rounds, r -> r[5]),
          "events/s",
          "",
          "diagnostic: delivered from the first acknowledgement until < "
              + OutageRecovery.CAUGHT_UP
              + " pending, per second (compare relay_"
              + name
              + "_events_per_s); "
              + runs);
      figures.add(
          "outage_publish_calls_during_cut_" + name,
          median(rounds, r -> r[2]),
          "calls",
          "",
          "diagnostic: probes (one message each) and the batches that found the broker gone; "
              + runs);
      double attempts = highest(rounds, 3);
      figures.add(
          "outage_max_attempts_at_return_" + name,
          attempts,
          "attempts",
          "0",
          (attempts > 0 ? "FAILED: a broker outage counted attempts; " : "")
              + "highest attempts of any head just before the return, highest of the runs");
      double counted = highest(rounds, 6);
      figures.add(
          "outage_attempts_counted_" + name,
          counted,
          "attempts",
          "0",
          (counted > 0 ? "FAILED: attempts counted during an outage run; " : "")
              + "OutboxListener.failed calls from start to close, highest of the runs");
      figures.add(
          "outage_dead_letters_" + name,
          highest(rounds, 4),
          "messages",
          "0",
          "dead letters once the backlog was delivered, highest of the runs");
    }
  }

  /** Prints a run, and fails when it left a dead letter: a broker outage must make none. */
  private OutageRecovery.Result checked(String broker, OutageRecovery.Result result, String which) {
    System.out.println("    " + OutageRecovery.describe(result));
    if (result.maxAttemptsAtReturn() > 0) {
      System.out.printf(
          "    FAILED: the %s outage counted attempts (up to %d on a head)%n",
          broker, result.maxAttemptsAtReturn());
    }
    if (result.deadLetters() > 0) {
      throw new IllegalStateException(
          String.format(
              "The %s outage (%s) left %d dead letters; a broker outage must make none: %s",
              broker, which, result.deadLetters(), db.pendingSummary()));
    }
    return result;
  }

  private static double highest(List<double[]> rounds, int index) {
    return rounds.stream().mapToDouble(r -> r[index]).max().orElse(Double.NaN);
  }

  private void addBrokerFigures(String broker, List<double[]> rounds, String ceilingBound) {
    figures.add(
        broker + "_ceiling_msgs_per_s", median(rounds, r -> r[0]), "msgs/s", "", ceilingBound);
    figures.add(
        "relay_" + broker + "_events_per_s", median(rounds, r -> r[1]), "events/s", "", "see note");
    figures.add(
        "relay_" + broker + "_vs_ceiling",
        median(rounds, r -> r[1] / r[0]),
        "ratio",
        "",
        "see note");
  }

  private double drain(
      Relay relay,
      Supplier<EventPublisher> publishers,
      String aggregateType,
      int size,
      int aggregates) {
    Relay.Run run = relay.drain(publishers, aggregateType, size, aggregates);
    System.out.printf(
        "    %s over %d aggregates: %.0f events/s; %s%n",
        aggregateType, Math.min(size, aggregates), run.rate(), run.profile());
    if (run.failures() > 0) {
      System.out.println("    " + run.failures() + " failed attempts during the drain");
    }
    return run.rate();
  }

  /** One warm-up round on the small backlog, then the measured rounds on the full one. */
  private List<double[]> rounds(String what, Round round) {
    System.out.println("  " + what + ": warm-up (" + scale.warmUpBacklog() + " events)");
    round.run(scale.warmUpBacklog());
    List<double[]> measured = new ArrayList<>();
    for (int r = 1; r <= scale.runs(); r++) {
      System.out.println("  " + what + ": run " + r + " (" + scale.backlog() + " events)");
      measured.add(round.run(scale.backlog()));
    }
    return measured;
  }

  static double median(List<double[]> rounds, ToDoubleFunction<double[]> value) {
    List<Double> values = new ArrayList<>();
    rounds.forEach(r -> values.add(value.applyAsDouble(r)));
    return Stats.median(values);
  }

  /** One measured round at a size. */
  @FunctionalInterface
  private interface Round {
    double[] run(int size);
  }
}
