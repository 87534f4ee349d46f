package dev.fiucx.conformance.remote;

/**
 * The target side of a test: a domain that exposes one region, in this process or another, whose
 * memory the test sets and inspects without going through the provider under test.
 */
public interface Target extends AutoCloseable {
  /** {@return the target domain's address, for the initiator's address vector} */
  byte[] address();

  /** {@return the region's key} */
  long key();

  /**
   * Writes {@code bytes} into the region at {@code offset}.
   *
   * @param offset the first byte's offset in the region
   * @param bytes the bytes to write
   */
  void set(long offset, byte[] bytes);

  /**
   * {@return {@code n} bytes of the region at {@code offset}, read}
   *
   * @param offset the first byte's offset in the region
   * @param n how many bytes
   */
  byte[] get(long offset, int n);

  /** Closes the region, revoking its key. */
  void closeRegion();

  @Override
  void close();
}
