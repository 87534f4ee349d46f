package dev.fiucx;

import dev.fiucx.engine.InCallAtomics;
import dev.fiucx.validation.CallGuard;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The blocking calls under {@link AtomicRegion}: one endpoint and completion queue of their own,
 * operand, compare and result words made once, and a call that posts and waits for its completion.
 * A one-element call goes through {@link InCallAtomics}, so an element the engine does inside the
 * call (a CPU atomic on a mapped region) returns without a completion entry; every other call waits
 * for its one entry on the queue. One call at a time: the words and the queue are shared by every
 * call, so a {@link CallGuard} refuses a second thread while one is inside.
 */
final class BlockingCalls implements AutoCloseable {
  private final ConnectedEndpoint connected;
  private final Endpoint endpoint;
  private final InCallAtomics inCall;
  private final CompletionQueue cq;
  private final long peer;
  private final Arena arena = Arena.ofShared();
  private final CqEntry[] entries = {new CqEntry()};
  private final CqErrEntry error = new CqErrEntry();
  private final CallGuard guard = CallGuard.refusing();

  /** The operand word of a one-element call. */
  final MemorySegment operand;

  /** The compare word of a one-element compare call. */
  final MemorySegment compare;

  /** The old value of a one-element fetch or compare call. */
  final MemorySegment result;

  /** Set by {@link #close} inside the guard; read inside it. */
  private boolean closed;

  /** Takes {@code connected} over; throws, leaving it open, when its endpoint is not fiucx's. */
  BlockingCalls(ConnectedEndpoint connected) {
    this.connected = connected;
    if (!(connected.endpoint() instanceof InCallAtomics engine)) {
      arena.close();
      throw new FiException(
          FiErrno.EOPNOTSUPP, "the provider's endpoint has no one-element call: use the mirror");
    }
    endpoint = connected.endpoint();
    inCall = engine;
    cq = connected.cq();
    peer = connected.peer();
    MemorySegment words = arena.allocate(24, 8);
    operand = words.asSlice(0, 8);
    compare = words.asSlice(8, 8);
    result = words.asSlice(16, 8);
  }

  /**
   * Enters the guard; the caller must {@link #exit}. Throws {@code FI_EBUSY} while another thread
   * is inside and {@code FI_EOPBADSTATE} once closed.
   */
  void enter() {
    if (guard.enter() < 0) {
      throw new FiException(FiErrno.EBUSY, "another thread is inside this region's calls");
    }
    if (closed) {
      guard.exit();
      throw new FiException(FiErrno.EOPBADSTATE, "the region is closed");
    }
  }

  /** Leaves after {@link #enter}. */
  void exit() {
    guard.exit();
  }

  /**
   * One element of {@code family}'s plain call on {@link #operand}, {@link #compare} and {@link
   * #result}, done: 0, or the negative fi_errno of the call or of its completion.
   */
  int one(AtomicFamily family, FiOp op, FiDatatype datatype, long addr, long key) {
    int rc =
        inCall.postInCall(
            family,
            op,
            datatype,
            operand,
            family == AtomicFamily.COMPARE ? compare : null,
            family == AtomicFamily.BASE ? null : result,
            peer,
            addr,
            key);
    return rc == InCallAtomics.DONE_IN_CALL ? 0 : rc < 0 ? rc : awaitCompletion();
  }

  /**
   * {@code count} elements of {@code fi_atomic}, or of {@code fi_fetch_atomic} when {@code
   * previous} is not null, done: 0 or a negative fi_errno.
   */
  int many(
      FiOp op,
      FiDatatype datatype,
      MemorySegment operands,
      MemorySegment previous,
      long count,
      long addr,
      long key) {
    int rc =
        previous == null
            ? endpoint.atomic(operands, count, null, peer, addr, key, datatype, op, null)
            : endpoint.fetchAtomic(
                operands, count, null, previous, null, peer, addr, key, datatype, op, null);
    return rc < 0 ? rc : awaitCompletion();
  }

  /** Waits for the one completion of the call just posted: 0 or its negative fi_errno. */
  private int awaitCompletion() {
    int n = cq.sread(entries, 1, -1);
    if (n == 1) {
      return 0;
    }
    if (n != -FiErrno.EAVAIL) {
      return n;
    }
    int rc = cq.readErr(error);
    return rc < 0 ? rc : -error.err;
  }

  /** Waits for a call another thread is inside, then closes the endpoint, queue and words. */
  @Override
  public void close() {
    guard.enterWaiting();
    try {
      if (closed) {
        return;
      }
      closed = true;
      connected.close();
      arena.close();
    } finally {
      guard.exit();
    }
  }
}
