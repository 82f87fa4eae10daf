package dev.outbox.kafka.kill;

import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.testkit.kill.BoundedWriter;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;

/**
 * The load of {@link dev.outbox.kafka.KafkaProcessorKillIT}: a {@link BoundedWriter} whose
 * transactions step {@link E2eAggregate}s through Hibernate (the first transaction of an aggregate
 * creates it), so that each aggregate's events ({@link E2eAggregate.Stepped}) are numbered 0, 1, 2,
 * ... in commit order.
 */
public final class SteadyWriter {

  private SteadyWriter() {}

  /**
   * A writer, not started.
   *
   * @param emf a persistence unit managing {@link E2eAggregate}
   * @param aggregateType the aggregate type (the topic)
   * @param idPrefix the start of every aggregate id
   * @param aggregates how many aggregates
   * @param threads how many writer threads
   * @param maxEventsPerAggregate at most this many events of one aggregate per transaction
   * @return the writer; its {@link BoundedWriter#eventsPerAggregate()} numbered from 0, for {@link
   *     dev.outbox.testkit.e2e.DeliveryCheck#expecting(java.util.Map)}
   */
  public static BoundedWriter create(
      SessionFactory emf,
      String aggregateType,
      String idPrefix,
      int aggregates,
      int threads,
      int maxEventsPerAggregate) {
    List<String> ids = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      ids.add(String.format("%s-%04d", idPrefix, a));
    }
    return new BoundedWriter(
        "steady-writer",
        ids,
        threads,
        maxEventsPerAggregate,
        steps ->
            emf.inTransaction(
                session ->
                    steps.forEach(
                        step -> {
                          E2eAggregate aggregate =
                              session.find(E2eAggregate.class, step.aggregateId());
                          if (aggregate == null) {
                            aggregate = new E2eAggregate(step.aggregateId(), aggregateType);
                            session.persist(aggregate);
                          }
                          for (int s = 0; s < step.events(); s++) {
                            aggregate.step();
                          }
                        })));
  }
}
