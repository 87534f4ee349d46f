package dev.fiucx.examples.spark;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The driver's exact check of a ticket job: the fetched tickets of all tasks together are exactly
 * {@code 0 .. records - 1}, each once, and the counter holds {@code records}. A Spark accumulator
 * cannot say this while the job runs: it sums what tasks report, so it counts a record twice when a
 * task is retried and never sees two tasks handed the same value. A remote fetch-and-add can: a
 * lost update shows as a ticket fetched twice, a torn or invented value as one out of range, a
 * record that took no ticket as one missing.
 */
public final class TicketCheck {
  /** Examples of each kind of problem named in a report; the counts are always whole. */
  private static final int EXAMPLES = 5;

  private TicketCheck() {}

  /**
   * What is wrong, one line per kind of problem, or an empty list when the tickets and the counter
   * are exact.
   *
   * @param tasks every task's fetched tickets
   * @param records how many records the job had, at most {@link Integer#MAX_VALUE}
   * @param counter what the counter held after the job
   */
  public static List<String> problems(List<long[]> tasks, long records, long counter) {
    if (records < 0 || records > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("records must be 0 .. 2^31-1, not " + records);
    }
    BitSet seen = new BitSet((int) records);
    long total = 0;
    long duplicates = 0;
    long outOfRange = 0;
    List<Long> duplicateExamples = new ArrayList<>();
    List<String> outOfRangeExamples = new ArrayList<>();
    for (long[] tickets : tasks) {
      total += tickets.length;
      for (long t : tickets) {
        if (t < 0 || t >= records) {
          if (outOfRange++ < EXAMPLES) {
            outOfRangeExamples.add(Long.toUnsignedString(t));
          }
        } else if (seen.get((int) t)) {
          if (duplicates++ < EXAMPLES) {
            duplicateExamples.add(t);
          }
        } else {
          seen.set((int) t);
        }
      }
    }
    List<String> problems = new ArrayList<>();
    if (total != records) {
      problems.add(total + " tickets fetched for " + records + " records");
    }
    if (outOfRange > 0) {
      problems.add(
          outOfRange + " tickets out of range 0.." + (records - 1) + ": " + outOfRangeExamples);
    }
    if (duplicates > 0) {
      problems.add(duplicates + " repeats of tickets already fetched: " + duplicateExamples);
    }
    long missing = records - seen.cardinality();
    if (missing > 0) {
      List<Integer> missingExamples = new ArrayList<>();
      for (int t = seen.nextClearBit(0);
          t < records && missingExamples.size() < EXAMPLES;
          t = seen.nextClearBit(t + 1)) {
        missingExamples.add(t);
      }
      problems.add(missing + " tickets never fetched: " + missingExamples);
    }
    if (counter != records) {
      problems.add("the counter holds " + Long.toUnsignedString(counter) + ", not " + records);
    }
    return problems;
  }
}
