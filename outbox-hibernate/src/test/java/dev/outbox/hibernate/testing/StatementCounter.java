package dev.outbox.hibernate.testing;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import net.ttddyy.dsproxy.ExecutionInfo;
import net.ttddyy.dsproxy.QueryInfo;
import net.ttddyy.dsproxy.listener.QueryExecutionListener;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;

/** Wraps a data source and records every JDBC execution that touches a given table. */
public final class StatementCounter implements QueryExecutionListener {

  /** One JDBC execution: a batch or a single statement, with its number of parameter sets. */
  public record Execution(boolean batch, int parameterSets, String sql) {}

  private final String table;
  private final List<Execution> executions = new CopyOnWriteArrayList<>();

  public StatementCounter(String table) {
    this.table = table.toLowerCase(Locale.ROOT);
  }

  /** The data source whose executions are recorded. */
  public DataSource wrap(DataSource dataSource) {
    return ProxyDataSourceBuilder.create(dataSource).listener(this).build();
  }

  /**
   * Executions that insert message rows into the table (alone, or in a statement that also writes
   * the heads), since the last reset.
   */
  public List<Execution> inserts() {
    return executions.stream()
        .filter(e -> e.sql().contains("insert into " + table + " ("))
        .toList();
  }

  /** Every execution that names the table or a table named after it, since the last reset. */
  public List<Execution> all() {
    return List.copyOf(executions);
  }

  public void reset() {
    executions.clear();
  }

  @Override
  public void beforeQuery(ExecutionInfo execInfo, List<QueryInfo> queryInfoList) {}

  @Override
  public void afterQuery(ExecutionInfo execInfo, List<QueryInfo> queryInfoList) {
    for (QueryInfo query : queryInfoList) {
      String sql = query.getQuery().strip().toLowerCase(Locale.ROOT);
      if (sql.contains(table)) {
        executions.add(new Execution(execInfo.isBatch(), query.getParametersList().size(), sql));
      }
    }
  }
}
