package dev.fiucx.engine;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.completion.CompletionCounter;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.spi.Progress;

/**
 * What an endpoint is bound to ({@code fi_ep_bind}) and whether it is enabled ({@code fi_enable}):
 * the address vector, the completion queue (and whether it was bound with {@code
 * FI_SELECTIVE_COMPLETION}) and the read and write counters, each of this domain, open, and bound
 * once, and all before the endpoint is enabled. The set-up calls throw; nothing here is on the hot
 * path: {@link EngineEndpoint#enable} hands what was bound to the objects that post.
 */
final class EndpointBindings {
  private final Progress progress;

  private EngineAddressVector av;
  private CompletionRing cq;
  private boolean selective;
  private CompletionCounter readCounter;
  private CompletionCounter writeCounter;
  private boolean enabled;

  /**
   * @param progress the domain's progress: a queue or counter of another domain has another
   */
  EndpointBindings(Progress progress) {
    this.progress = progress;
  }

  void bind(CompletionQueue queue, long flags) {
    if (!(queue instanceof CompletionRing ring)) {
      throw new FiException(FiErrno.EINVAL, "not a completion queue of this provider: " + queue);
    }
    if (!ring.progressedBy(progress)) {
      throw new FiException(FiErrno.EINVAL, "the completion queue belongs to another domain");
    }
    if (ring.isClosed()) {
      throw new FiException(FiErrno.EOPBADSTATE, "the completion queue is closed");
    }
    if ((flags & ~(FiFlags.TRANSMIT | FiFlags.RECV | FiFlags.SELECTIVE_COMPLETION)) != 0) {
      throw new FiException(FiErrno.EBADFLAGS, "fi_ep_bind(cq): 0x" + Long.toHexString(flags));
    }
    requireDisabled();
    if (cq != null) {
      // libfabric's util endpoints: "duplicate CQ binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "a completion queue is already bound");
    }
    try {
      ring.bindEndpoint();
    } catch (IllegalStateException e) {
      throw new FiException(FiErrno.EBUSY, e.getMessage());
    }
    cq = ring;
    selective = (flags & FiFlags.SELECTIVE_COMPLETION) != 0;
  }

  void bind(Counter counter, long flags) {
    if (!(counter instanceof CompletionCounter c)) {
      throw new FiException(FiErrno.EINVAL, "not a counter of this provider: " + counter);
    }
    if (!c.progressedBy(progress)) {
      throw new FiException(FiErrno.EINVAL, "the counter belongs to another domain");
    }
    if (c.isClosed()) {
      throw new FiException(FiErrno.EOPBADSTATE, "the counter is closed");
    }
    if ((flags & ~(FiFlags.READ | FiFlags.WRITE)) != 0 || flags == 0) {
      throw new FiException(
          FiErrno.EBADFLAGS, "fi_ep_bind(cntr) takes FI_READ and/or FI_WRITE for atomics");
    }
    requireDisabled();
    if ((flags & FiFlags.READ) != 0 && readCounter != null
        || (flags & FiFlags.WRITE) != 0 && writeCounter != null) {
      // libfabric's util endpoints: "duplicate counter binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "a counter is already bound for these events");
    }
    if ((flags & FiFlags.READ) != 0) {
      readCounter = c;
    }
    if ((flags & FiFlags.WRITE) != 0) {
      writeCounter = c;
    }
  }

  void bind(AddressVector addresses) {
    if (!(addresses instanceof EngineAddressVector a)) {
      throw new FiException(FiErrno.EINVAL, "not an address vector of this provider: " + addresses);
    }
    requireDisabled();
    if (av != null) {
      // libfabric's util endpoints: "duplicate AV binding", -FI_EINVAL
      throw new FiException(FiErrno.EINVAL, "an address vector is already bound");
    }
    av = a;
  }

  /** {@code fi_enable}: once, with an address vector bound. */
  void enable() {
    requireDisabled();
    if (av == null) {
      throw new FiException(FiErrno.ENOAV, "bind an address vector before fi_enable");
    }
    enabled = true;
  }

  private void requireDisabled() {
    if (enabled) {
      throw new FiException(FiErrno.EOPBADSTATE, "the endpoint is already enabled");
    }
  }

  /** The bound address vector, or null. */
  EngineAddressVector av() {
    return av;
  }

  /** The bound completion queue, or null. */
  CompletionRing cq() {
    return cq;
  }

  /** Whether the queue was bound with {@code FI_SELECTIVE_COMPLETION}. */
  boolean selective() {
    return selective;
  }

  /** The counter of reads (fetch and compare calls), or null. */
  CompletionCounter readCounter() {
    return readCounter;
  }

  /** The counter of writes (base calls), or null. */
  CompletionCounter writeCounter() {
    return writeCounter;
  }
}
