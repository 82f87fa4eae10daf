package dev.outbox.benchmarks.internal;

import java.util.Arrays;
import java.util.List;

/** Medians and percentiles. */
public final class Stats {

  private Stats() {}

  /**
   * The median.
   *
   * @param values at least one value
   * @return the middle value, or the mean of the two middle values
   */
  public static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /**
   * A percentile by the nearest-rank method.
   *
   * @param sorted values in ascending order, at least one
   * @param percent 0 to 100
   * @return the value at that rank
   */
  public static double percentile(double[] sorted, double percent) {
    int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }

  /**
   * Sorts a copy.
   *
   * @param values the values
   * @return them sorted
   */
  public static double[] sorted(double[] values) {
    double[] copy = values.clone();
    Arrays.sort(copy);
    return copy;
  }
}
