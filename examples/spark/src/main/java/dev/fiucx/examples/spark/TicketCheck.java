package dev.fiucx.examples.spark;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The driver's exact check of a ticket job: the fetched tickets of all tasks together are exactly
 * {@code base .. base + records - 1}, each once, and the counter moved from {@code base} to {@code
 * base + records} (0 .. N-1 and N on a fresh counter). No Spark accumulator can give this: tasks
 * only add to an accumulator and only the driver reads it, after the tasks ended, so it counts
 * records but cannot hand each one a number while the job runs (and an update made in a
 * transformation is applied again when a task is re-run). A remote fetch-and-add hands out the
 * numbers, and this check proves them: a lost update shows as a ticket fetched twice, a torn or
 * invented value as one out of range, a record that took no ticket (or a failed task attempt whose
 * tickets never reached the driver) as tickets never fetched and a counter beyond the records. The
 * counter is a {@code FI_UINT64}: ranges and the counter wrap as it does.
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
   * @param base what the counter held before the job: the first ticket
   * @param records how many records the job had, at most {@link Integer#MAX_VALUE}
   * @param counter what the counter held after the job
   */
  public static List<String> problems(List<long[]> tasks, long base, long records, long counter) {
    if (records < 0 || records > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("records must be 0 .. 2^31-1, not " + records);
    }
    BitSet seen = new BitSet((int) records);
    long total = 0;
    long duplicates = 0;
    long outOfRange = 0;
    List<String> duplicateExamples = new ArrayList<>();
    List<String> outOfRangeExamples = new ArrayList<>();
    for (long[] tickets : tasks) {
      total += tickets.length;
      for (long t : tickets) {
        long index = t - base;
        if (Long.compareUnsigned(index, records) >= 0) {
          if (outOfRange++ < EXAMPLES) {
            outOfRangeExamples.add(Long.toUnsignedString(t));
          }
        } else if (seen.get((int) index)) {
          if (duplicates++ < EXAMPLES) {
            duplicateExamples.add(Long.toUnsignedString(t));
          }
        } else {
          seen.set((int) index);
        }
      }
    }
    List<String> problems = new ArrayList<>();
    if (total != records) {
      problems.add(total + " tickets fetched for " + records + " records");
    }
    if (outOfRange > 0) {
      problems.add(
          outOfRange
              + " tickets out of range "
              + Long.toUnsignedString(base)
              + ".."
              + Long.toUnsignedString(base + records - 1)
              + ": "
              + outOfRangeExamples);
    }
    if (duplicates > 0) {
      problems.add(duplicates + " repeats of tickets already fetched: " + duplicateExamples);
    }
    long missing = records - seen.cardinality();
    if (missing > 0) {
      List<String> missingExamples = new ArrayList<>();
      for (int i = seen.nextClearBit(0);
          i < records && missingExamples.size() < EXAMPLES;
          i = seen.nextClearBit(i + 1)) {
        missingExamples.add(Long.toUnsignedString(base + i));
      }
      problems.add(missing + " tickets never fetched: " + missingExamples);
    }
    if (counter != base + records) {
      problems.add(
          "the counter holds "
              + Long.toUnsignedString(counter)
              + ", not "
              + Long.toUnsignedString(base + records));
    }
    return problems;
  }
}
