package dev.fiucx;

/**
 * Peer addresses by number: libfabric's {@code struct fid_av} of type {@code FI_AV_TABLE}. Insert
 * an endpoint's {@link Endpoint#name()} to get the {@code fi_addr_t} that calls take as {@code
 * destAddr}.
 */
public interface AddressVector extends AutoCloseable {
  /** {@code FI_ADDR_NOTAVAIL}. */
  long ADDR_NOTAVAIL = -1L;

  /**
   * {@return {@code fi_av_insert} of one address; returns its {@code fi_addr_t}. Set-up: throws}
   *
   * @param address a peer's address, as its endpoint's {@code name()} gave it
   */
  long insert(byte[] address);

  /**
   * {@code fi_av_remove}: later calls to it fail with {@code -FI_EINVAL}.
   *
   * @param fiAddr what {@link #insert} returned
   */
  void remove(long fiAddr);

  @Override
  void close();
}
