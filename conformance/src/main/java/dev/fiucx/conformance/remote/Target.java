package dev.fiucx.conformance.remote;

/**
 * The target side of a test: a domain that exposes one region, in this process or another, whose
 * memory the test sets and inspects without going through the provider under test.
 */
public interface Target extends AutoCloseable {
  /** The target domain's address, for the initiator's address vector. */
  byte[] address();

  /** The region's key. */
  long key();

  /** Writes {@code bytes} into the region at {@code offset}. */
  void set(long offset, byte[] bytes);

  /** Reads {@code n} bytes of the region at {@code offset}. */
  byte[] get(long offset, int n);

  /** Closes the region, revoking its key. */
  void closeRegion();

  @Override
  void close();
}
