package dev.fiucx.perf.bench;

import java.io.IOException;

/**
 * What bench runs against: a {@code bench --server} (its own region, which it zeroes, progresses
 * and hands back around each run) or a {@code fiucx serve} (a named region other initiators may
 * share, which bench can neither zero nor read back).
 */
interface BenchTarget extends AutoCloseable {
  /** The target domain's address, for the address vector. */
  byte[] address();

  long key();

  long regionLength();

  /** The region's own to bench: zeroed before each run and handed back after it. */
  boolean exclusive();

  /** Zeroes the region; only while no operation is in flight (a serve's is left as it is). */
  void zero() throws IOException;

  /** The target starts progressing (a serve always does). */
  void start() throws IOException;

  /** The target stops progressing; the region's bytes, or null when it cannot hand them over. */
  byte[] stop() throws IOException;

  @Override
  void close();
}
