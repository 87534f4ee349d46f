package dev.fiucx.perf.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * A set of CPUs in the kernel's list format ({@code 0,2-3}), as {@code -c} takes it, taskset(1)
 * prints it and {@code /proc/.../status} shows a thread's {@code Cpus_allowed_list}.
 *
 * @param cpus the CPU numbers, ascending, distinct
 */
record CpuSet(List<Integer> cpus) {
  /** Where Linux lists the CPUs that are online. */
  private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");

  /** Beyond any machine's CPU count: a number above it is a typo, not a CPU. */
  private static final int MAX_CPU = 1 << 16;

  CpuSet {
    cpus = List.copyOf(cpus);
  }

  /**
   * The CPUs of {@code list}: numbers and ranges, comma separated ({@code 0,2-3}).
   *
   * @throws IllegalArgumentException naming what is not a CPU list
   */
  static CpuSet parse(String list) {
    BitSet set = new BitSet();
    String trimmed = list.trim();
    if (trimmed.isEmpty()) {
      throw new IllegalArgumentException("an empty CPU list");
    }
    for (String item : trimmed.split(",", -1)) {
      String s = item.trim();
      int dash = s.indexOf('-');
      int from = number(dash < 0 ? s : s.substring(0, dash), list);
      int to = dash < 0 ? from : number(s.substring(dash + 1), list);
      if (to < from) {
        throw new IllegalArgumentException("'" + s + "' is a range from high to low");
      }
      set.set(from, to + 1);
    }
    return new CpuSet(set.stream().boxed().toList());
  }

  private static int number(String s, String list) {
    if (s.isEmpty() || !s.chars().allMatch(Character::isDigit) || s.length() > 6) {
      throw new IllegalArgumentException("'" + list + "' is not a CPU list such as 0,2-3");
    }
    int n = Integer.parseInt(s);
    if (n >= MAX_CPU) {
      throw new IllegalArgumentException(n + " is beyond any CPU number");
    }
    return n;
  }

  /** This machine's online CPUs, as Linux lists them; elsewhere 0 .. the JVM's processors - 1. */
  static CpuSet online() {
    try {
      return parse(Files.readString(ONLINE));
    } catch (IOException | IllegalArgumentException e) {
      int n = Runtime.getRuntime().availableProcessors();
      return new CpuSet(java.util.stream.IntStream.range(0, n).boxed().toList());
    }
  }

  boolean contains(int cpu) {
    return cpus.contains(cpu);
  }

  /** The CPUs of this set that {@code other} lacks. */
  List<Integer> missingFrom(CpuSet other) {
    return cpus.stream().filter(c -> !other.contains(c)).toList();
  }

  int highest() {
    return cpus.getLast();
  }

  /** The kernel's list format, ranges joined: {@code 0,2-3}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cpus.size(); ) {
      int j = i;
      while (j + 1 < cpus.size() && cpus.get(j + 1) == cpus.get(j) + 1) {
        j++;
      }
      if (!b.isEmpty()) {
        b.append(',');
      }
      b.append(cpus.get(i));
      if (j > i) {
        b.append('-').append(cpus.get(j));
      }
      i = j + 1;
    }
    return b.toString();
  }
}
