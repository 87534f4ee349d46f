package dev.fiucx.conformance.remote;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Fetched values as tickets: when every op on an element adds one, the values fetched across all
 * initiators must be exactly {@code base, base + 1, ..., base + n - 1}, each once. A lost update
 * shows as a repeated ticket, a torn or invented one as a ticket out of range.
 */
public final class Tickets {
  private Tickets() {}

  /**
   * {@return every ticket (8 bytes each, big-endian) of the given files, in order}
   *
   * @param files the files, each written by one process
   * @throws IOException when a file cannot be read
   */
  public static long[] read(List<Path> files) throws IOException {
    long total = 0;
    for (Path f : files) {
      total += Files.size(f) / 8;
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IOException("too many tickets: " + total);
    }
    long[] tickets = new long[(int) total];
    int n = 0;
    for (Path f : files) {
      long count = Files.size(f) / 8;
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(f)))) {
        for (long i = 0; i < count; i++) {
          tickets[n++] = in.readLong();
        }
      }
    }
    return tickets;
  }

  /**
   * Null when {@code tickets} are exactly {@code base .. base + expected - 1} each once (in any
   * order); else what is wrong. Sorts {@code tickets}.
   *
   * @param tickets the tickets, in any order
   * @param base the first ticket expected
   * @param expected how many tickets are expected
   * @return what is wrong, or null when nothing is
   */
  public static String problem(long[] tickets, long base, long expected) {
    if (tickets.length != expected) {
      return tickets.length + " tickets recorded, " + expected + " ops done";
    }
    Arrays.sort(tickets);
    for (int i = 0; i < tickets.length; i++) {
      if (tickets[i] != base + i) {
        return "ticket " + (base + i) + " is " + tickets[i] + " (lost, fetched twice or torn)";
      }
    }
    return null;
  }
}
