package dev.outbox.benchmarks.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;

/**
 * Counts what code does on a connection: the statements it executes (each one round trip to the
 * server with PgJDBC, which sends no batch here) and the commits. A diagnostic, not timed: the
 * wrapper is a dynamic proxy, so it calls through reflection.
 */
final class StatementCounter {

  private long statements;
  private long commits;

  /**
   * Wraps a connection: statements made on the wrapper count their executions.
   *
   * @param connection the connection to count on
   * @return a connection that forwards every call to it
   */
  Connection wrap(Connection connection) {
    return proxy(
        Connection.class,
        connection,
        (method, result) -> {
          if (method.getName().equals("commit")) {
            commits++;
          }
          if (result instanceof Statement statement
              && Statement.class.isAssignableFrom(method.getReturnType())) {
            return countExecutions(method.getReturnType(), statement);
          }
          return result;
        });
  }

  /** Statements executed so far. */
  long statements() {
    return statements;
  }

  /** Commits so far. */
  long commits() {
    return commits;
  }

  private Object countExecutions(Class<?> type, Statement statement) {
    return proxy(
        type,
        statement,
        (method, result) -> {
          if (method.getName().startsWith("execute")) {
            statements++;
          }
          return result;
        });
  }

  /** What a proxy does with a call's result. */
  @FunctionalInterface
  private interface After {
    Object apply(Method method, Object result);
  }

  private static <T> T proxy(Class<T> type, Object target, After after) {
    Object proxy =
        Proxy.newProxyInstance(
            StatementCounter.class.getClassLoader(),
            new Class<?>[] {type},
            (self, method, args) -> {
              try {
                return after.apply(method, method.invoke(target, args));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
    return type.cast(proxy);
  }
}
