package dev.fiucx.conformance.remote;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A {@code SIGSTOP} aimed at an initiator while it holds the remote lock, not wherever it lands.
 * Over tcp a lock element holds its stripe for a few round trips (get, put, release) of the
 * millisecond each operation takes, so a stop lands inside a hold often, and the runner tells
 * whether it did from the two histories ({@link FaultLoadProcess}) alone:
 *
 * <ol>
 *   <li>the holder is stopped at a random moment; unless its last recorded operation is a {@code
 *       min}, its current one is no lock element, and it is let go at once;
 *   <li>the other initiator (the waiter) does a lock element every third operation, on the same
 *       stripe; if the stopped one holds it, the waiter's element waits a whole lease and then
 *       takes the lock over, which its history says ({@code takeover N}) before that element's
 *       line;
 *   <li>a lock element of the waiter's that ends with no takeover (the stopped one held no lock, or
 *       only a ticket whose turn the waiter skipped) is a miss: the holder is let go, and tried
 *       again a little later.
 * </ol>
 *
 * <p>A caught holder stays stopped for the pause asked for (at least until the takeover), then goes
 * on: it must find that its hold outlasted the lease and either start over before its put or find
 * its release refused ({@link FaultHistory#lockHoldsOutlasted}).
 */
final class HolderPause {
  /** How long the runner keeps trying to catch a holder. */
  static final long AIM_MS = 15_000;

  private HolderPause() {}

  /**
   * Stops {@code holder} while it holds the lock, for {@code pauseMs}.
   *
   * @param holder the initiator to stop
   * @param holderHistory its history file
   * @param waiterHistory the history of an initiator that does lock elements on the same element
   * @param leaseMs the lock lease both use
   * @param pauseMs how long the caught holder stays stopped, from its stop
   * @return when the caught holder was let go (System.currentTimeMillis), or -1 when no stop caught
   *     it within {@link #AIM_MS}
   */
  static long aim(
      Process holder, Path holderHistory, Path waiterHistory, long leaseMs, long pauseMs)
      throws IOException, InterruptedException {
    long giveUp = System.currentTimeMillis() + AIM_MS;
    while (System.currentTimeMillis() < giveUp && holder.isAlive()) {
      Thread.sleep(5 + ThreadLocalRandom.current().nextInt(40));
      long waiterFrom = length(waiterHistory);
      FaultRun.signal("STOP", holder.pid());
      long stopped = System.currentTimeMillis();
      boolean caught = false;
      try {
        if (lastLine(holderHistory).startsWith("min ")) {
          caught = takenOver(waiterHistory, waiterFrom, stopped + leaseMs + 2_000);
        }
        if (caught) {
          long until = Math.max(stopped + pauseMs, System.currentTimeMillis());
          Thread.sleep(until - System.currentTimeMillis());
        }
      } finally {
        FaultRun.signal("CONT", holder.pid());
      }
      if (caught) {
        return System.currentTimeMillis();
      }
    }
    return -1;
  }

  /**
   * Watches what the waiter writes from byte {@code from} on until it takes a lock over (true),
   * ends a lock element without taking one over (false), or {@code untilMillis} passes (false).
   */
  private static boolean takenOver(Path waiterHistory, long from, long untilMillis)
      throws IOException, InterruptedException {
    while (System.currentTimeMillis() < untilMillis) {
      String written = read(waiterHistory, from);
      // whole lines only: the last may still be being written
      for (String line : written.substring(0, written.lastIndexOf('\n') + 1).split("\n")) {
        if (line.startsWith("takeover ")) {
          return true;
        }
        if (line.startsWith("lock ")) {
          return false; // a lock element that ended without a takeover
        }
      }
      Thread.sleep(20);
    }
    return false;
  }

  /** {@return the last whole line of {@code file}, "" when it has none} */
  private static String lastLine(Path file) throws IOException {
    long n = length(file);
    String tail = read(file, Math.max(0, n - 512));
    int end = tail.lastIndexOf('\n');
    return end < 0 ? "" : tail.substring(tail.lastIndexOf('\n', end - 1) + 1, end);
  }

  private static long length(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      return f.length();
    }
  }

  /** {@return the file's bytes from {@code from} to its end, as they are now} */
  private static String read(Path file, long from) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      byte[] b = new byte[(int) Math.max(0, f.length() - from)];
      f.seek(from);
      f.readFully(b);
      return new String(b, StandardCharsets.US_ASCII);
    }
  }
}
