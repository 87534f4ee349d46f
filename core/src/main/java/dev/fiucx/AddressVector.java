package dev.fiucx;

/**
 * Peer addresses by number: libfabric's {@code struct fid_av} of type {@code FI_AV_TABLE}. Insert
 * an endpoint's {@link Endpoint#name()} to get the {@code fi_addr_t} that calls take as {@code
 * destAddr}.
 *
 * <p><b>Threads.</b> {@link #insert}, {@link #remove} and {@link #close} are synchronized: any
 * thread may call them, also while endpoints bound to the vector post (a call that looks a peer up
 * sees the table before or after an insert or remove, never half of one).
 *
 * <p><b>Errors.</b> Set-up calls: they throw {@link FiException}, {@code FI_EOPBADSTATE} once the
 * vector is closed.
 */
public interface AddressVector extends AutoCloseable {
  /** {@code FI_ADDR_NOTAVAIL}. */
  long ADDR_NOTAVAIL = -1L;

  /**
   * {@return {@code fi_av_insert} of one address; returns its {@code fi_addr_t}. Set-up: throws
   * {@code FI_EINVAL} for bytes that are not a fiucx address, and what the provider reports when it
   * cannot reach the peer}
   *
   * @param address a peer's address, as its endpoint's {@code name()} gave it
   */
  long insert(byte[] address);

  /**
   * {@code fi_av_remove}: later calls to it return {@code -FI_EADDRNOTAVAIL}. Throws {@code
   * FI_EINVAL} for an {@code fi_addr_t} that names no peer (never inserted, or removed).
   *
   * @param fiAddr what {@link #insert} returned
   */
  void remove(long fiAddr);

  @Override
  void close();
}
