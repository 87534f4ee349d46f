package dev.fiucx.ucx;

import static dev.fiucx.ucx.UcxConstants.*;
import static dev.fiucx.ucx.UcxLayout.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Posts one UCX atomic, put, get or endpoint flush per call, on one transport's worker, without
 * allocating: the {@code ucp_request_param_t} and the operand live in preallocated native scratch,
 * and completions come back through one upcall stub made when the transport opens.
 *
 * <p>Completion protocol. The param asks for a callback with the engine's token as {@code
 * user_data}. UCX then either returns NULL (done at once, and the callback is never called), an
 * error code (nothing was sent), or a request; for a request we return {@link
 * TransportPeer#PENDING} and never touch the pointer again: the callback, called from inside {@code
 * ucp_worker_progress}, frees it and reports the token. So it does not matter whether another
 * thread's progress completes the request before {@code ucp_atomic_op_nbx} has even returned.
 *
 * <p>Operand lifetime. UCX's API asks that an atomic's {@code buffer} stay unchanged until the
 * operation completes. Protocols v1 (UCX_PROTO_ENABLE=n, UCX's default before 1.16) copy the
 * operand inside the call, so one scratch word serves every post. Protocols v2 (the default from
 * 1.16 on) copy it at the request's first send attempt: inside the call for endpoints made from a
 * worker address, as fiucx's are (on 1.13.1, 1.18.1 and 1.23.0~rc1 a shared word passes {@code
 * OperandLifetimeTest}), but later where UCX first has to reconfigure an endpoint. So on v2 each
 * atomic takes a request slot ({@link AtomicRequests}), its operand lives in the slot, and the slot
 * goes back only when UCX is done with the request. A non-fetching atomic on v2 asks UCX for a
 * request whatever happens ({@code UCP_OP_ATTR_FLAG_NO_IMM_CMPL}): UCX would otherwise free a
 * request it completed inside the call, and a slot is not UCX's to free. The CSWAP swap value and
 * every fetched result live in the caller's result buffer, which the engine keeps until completion.
 */
final class AtomicPoster {
  /** Where a completion UCX delivers goes: the request it ended, the engine's token, the status. */
  @FunctionalInterface
  interface RequestCompletions {
    void completed(long request, long token, int status);
  }

  // ucp_send_nbx_callback_t: void (*)(void *request, ucs_status_t status, void *user_data)
  private static final FunctionDescriptor SEND_CALLBACK =
      FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_BYTE, JAVA_LONG);
  private static final MethodHandle ON_COMPLETE;
  private static final MethodHandle ON_SLOT_DONE;

  static {
    try {
      MethodType callback = MethodType.methodType(void.class, long.class, byte.class, long.class);
      ON_COMPLETE = MethodHandles.lookup().findVirtual(AtomicPoster.class, "onComplete", callback);
      ON_SLOT_DONE = MethodHandles.lookup().findVirtual(AtomicPoster.class, "onSlotDone", callback);
      OWNER = MethodHandles.lookup().findVarHandle(AtomicPoster.class, "owner", Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Scratch layout: the param's room, the operand word, the last pending request. */
  private static final long OPERAND = PARAM_ROOM;

  private static final long LAST_REQUEST = PARAM_ROOM + 8;
  private static final long SCRATCH_SIZE = PARAM_ROOM + 16;
  private static final int FETCH_MASK =
      UCP_OP_ATTR_FIELD_CALLBACK
          | UCP_OP_ATTR_FIELD_USER_DATA
          | UCP_OP_ATTR_FIELD_DATATYPE
          | UCP_OP_ATTR_FIELD_REPLY_BUFFER;

  /** Non-fetching: no callback, the flush that follows reports the token. */
  private static final int POST_MASK = UCP_OP_ATTR_FIELD_DATATYPE;

  private static final int CALLBACK_MASK = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;

  /** Non-fetching on v2: a request in a slot, always returned, its callback gives the slot back. */
  private static final int POST_IN_SLOT_MASK =
      UCP_OP_ATTR_FIELD_DATATYPE
          | UCP_OP_ATTR_FIELD_REQUEST
          | UCP_OP_ATTR_FIELD_CALLBACK
          | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;

  private static final long DT4 = ucpDtMakeContig(4);
  private static final long DT8 = ucpDtMakeContig(8);

  private final RequestCompletions completions;
  private final boolean critical;
  private final Arena arena;
  private final long callback;

  /** The upcall that only gives a non-fetching atomic's slot back (the flush reports the token). */
  private final long slotDone;

  /** Whether UCX may read an operand after the call returned (protocols v2). */
  private final boolean operandKept;

  private final long discard;
  private final MemorySegment single;
  private final ThreadLocal<MemorySegment> perThread;

  /**
   * With a thread-safe worker: the thread that posted first (or first after it ended), which uses
   * {@link #ownerScratch}; others use {@link #perThread}.
   */
  private volatile Thread owner;

  private final MemorySegment ownerScratch;

  private static final java.lang.invoke.VarHandle OWNER;
  private final java.util.concurrent.ConcurrentLinkedQueue<Throwable> deferred =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  /** Whether {@link #deferred} may hold something: one volatile read per progress when not. */
  private volatile boolean anyDeferred;

  private final AtomicRequests requests;

  /** Fetching posts refused because every request slot was in flight. */
  private final java.util.concurrent.atomic.AtomicLong slotsExhausted =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param threadSafe whether several threads post and progress at once (UCS_THREAD_MODE_MULTI):
   *     then each thread gets its own scratch and calls go through the ordinary (non-critical)
   *     downcall
   * @param requestSize the context's UCP request size, for {@link AtomicRequests}
   * @param purgedOnFailure whether endpoints have peer-failure handling, so UCX may purge their
   *     requests: only then do fetching atomics need {@link AtomicRequests} (and pay its two
   *     compare-and-swaps per post)
   * @param operandKept whether UCX's protocols in use may read an operand after {@code
   *     ucp_atomic_op_nbx} returned (v2): then every atomic's operand lives in a request slot
   * @param requestSlots how many atomics may be in flight where slots are used
   */
  @SuppressWarnings("restricted")
  AtomicPoster(
      RequestCompletions completions,
      boolean threadSafe,
      long requestSize,
      boolean purgedOnFailure,
      boolean operandKept,
      int requestSlots) {
    this.completions = completions;
    this.critical = !threadSafe;
    this.operandKept = operandKept;
    this.arena = Arena.ofShared();
    this.requests =
        purgedOnFailure || operandKept
            ? new AtomicRequests(arena, requestSize, requestSlots)
            : null;
    Linker linker = Linker.nativeLinker();
    this.callback = linker.upcallStub(ON_COMPLETE.bindTo(this), SEND_CALLBACK, arena).address();
    this.slotDone = linker.upcallStub(ON_SLOT_DONE.bindTo(this), SEND_CALLBACK, arena).address();
    this.discard = arena.allocate(8, 8).address();
    if (threadSafe) {
      this.single = null;
      this.perThread = ThreadLocal.withInitial(this::newScratch);
      this.ownerScratch = newScratch();
    } else {
      this.single = newScratch();
      this.perThread = null;
      this.ownerScratch = null;
    }
  }

  private MemorySegment newScratch() {
    MemorySegment s = arena.allocate(SCRATCH_SIZE, 8); // zeroed
    s.set(JAVA_LONG, PARAM_CB, callback);
    return s;
  }

  private MemorySegment scratch() {
    if (single != null) {
      return single;
    }
    // the first thread to post keeps a scratch of its own without the ThreadLocal's lookup
    Thread t = Thread.currentThread();
    Thread o = owner;
    if (o == t || (o == null || !o.isAlive()) && OWNER.compareAndSet(this, o, t)) {
      return ownerScratch; // a thread that ended posts no more: the next one takes its scratch
    }
    return perThread.get();
  }

  /**
   * {@code remoteAddress op= operand} on a 4- or 8-byte word; {@code reply} (or 0) receives the old
   * value. Returns DONE, PENDING or a negative fi_errno; either way the operation has been applied
   * at the target when it completes.
   *
   * <p>A non-fetching atomic completes in UCX as soon as it has left (UCX frees the request inside
   * the call), yet a software atomic (tcp, registered memory) is applied only when the target
   * progresses. So a non-fetching ADD goes out as a fetching ADD into a discard word, whose reply
   * proves it applied (one round trip); a non-fetching AND, OR or XOR is followed by an endpoint
   * flush that carries the token and completes once every earlier operation on the endpoint is done
   * at the target (two round trips over tcp). They cannot fetch into a discard word: Debian's UCX
   * 1.13.1 computes fetching AND, OR and XOR wrongly on shared memory. On a CPU-atomic lane (shared
   * memory, allocated memory) the atomic is applied inside the call and the flush returns at once.
   *
   * <p>Where UCX may purge requests, a fetching atomic with every request slot in flight is refused
   * with {@code -FI_EAGAIN}: UCX's own pool is the path that crashed on a dying tcp peer.
   */
  int post(
      long ep,
      long rkey,
      long remoteAddress,
      int opcode,
      int size,
      long operand,
      long reply,
      long token) {
    if (reply == 0) {
      if (opcode == UCP_ATOMIC_OP_SWAP) {
        return -FiErrno.EINVAL; // UCX asserts (or crashes) on a swap without a reply buffer
      }
      if (opcode == UCP_ATOMIC_OP_ADD) {
        reply = discard; // written by every such ADD, read by nobody
      }
    }
    long request = 0;
    if (requests != null && (reply != 0 || operandKept)) {
      request = requests.take();
      if (request == 0) {
        slotsExhausted.incrementAndGet();
        return -FiErrno.EAGAIN;
      }
    }
    long base = scratch().address();
    // on v2 the operand lives in the slot, just after the pointer UCX is given (ours, see
    // AtomicRequests), for as long as UCX keeps the request
    long buffer = operandKept ? request : base + OPERAND;
    if (size == 8) {
      UcpNative.ALL.set(JAVA_LONG_UNALIGNED, buffer, operand);
    } else {
      UcpNative.ALL.set(JAVA_INT_UNALIGNED, buffer, (int) operand);
    }
    int mask;
    if (reply != 0) {
      mask = request != 0 ? FETCH_MASK | UCP_OP_ATTR_FIELD_REQUEST : FETCH_MASK;
      update(base + PARAM_CB, callback);
    } else if (operandKept) {
      mask = POST_IN_SLOT_MASK;
      update(base + PARAM_CB, slotDone);
    } else {
      mask = POST_MASK;
    }
    // the param as this thread's last call left it: only what differs is written (repeated calls
    // write the operand alone), by address (no session check), since every store still draining
    // delays the locked instruction of a shared-memory atomic inside the call
    if (UcpNative.ALL.get(JAVA_INT, base + PARAM_OP_ATTR_MASK) != mask) {
      UcpNative.ALL.set(JAVA_INT, base + PARAM_OP_ATTR_MASK, mask);
    }
    update(base + PARAM_REQUEST, request);
    update(base + PARAM_DATATYPE, size == 8 ? DT8 : DT4);
    update(base + PARAM_USER_DATA, token);
    update(base + PARAM_REPLY_BUFFER, reply);
    // a request denied immediate completion calls back inside the call, which a critical downcall
    // must never do (the JVM stops on an upcall from one)
    boolean inCallCallback = mask == POST_IN_SLOT_MASK;
    long status =
        UcpNative.atomicOpNbx(
            critical && !inCallCallback, ep, opcode, buffer, remoteAddress, rkey, base);
    if (request != 0 && status != request) {
      requests.give(request); // refused (or done at once when fetching): UCX never kept it
    }
    if (reply != 0) {
      return outcome(status);
    }
    if (UcsStatus.isError(status)) {
      return UcsStatus.toFiErrno((int) status);
    }
    if (status != 0 && request == 0) {
      UcpNative.requestFree(status); // UCX 1.13 never returns one for a post; if it does, let go
    }
    return postFlush(ep, token);
  }

  /**
   * Writes {@code value} at {@code address} (a word of this thread's scratch) unless it is there.
   */
  private static void update(long address, long value) {
    if (UcpNative.ALL.get(JAVA_LONG, address) != value) {
      UcpNative.ALL.set(JAVA_LONG, address, value);
    }
  }

  /**
   * Compare-and-swap: UCX takes the compare value as the operand and the swap value in the reply
   * buffer, which receives the old value.
   */
  int postCompareSwap(
      long ep,
      long rkey,
      long remoteAddress,
      int size,
      long compare,
      long swap,
      long reply,
      long token) {
    if (reply == 0) {
      return -FiErrno.EINVAL;
    }
    if (size == 8) {
      UcpNative.ALL.set(JAVA_LONG_UNALIGNED, reply, swap);
    } else {
      UcpNative.ALL.set(JAVA_INT_UNALIGNED, reply, (int) swap);
    }
    return post(ep, rkey, remoteAddress, UCP_ATOMIC_OP_CSWAP, size, compare, reply, token);
  }

  /**
   * Writes {@code length} bytes from {@code local} to {@code remoteAddress}, then flushes the
   * endpoint with the token: a put alone completes once its source may be reused, the flush once
   * the bytes are in place at the target, which is what the remote lock must know before it
   * releases.
   */
  int postPut(long ep, long rkey, long remoteAddress, int length, long local, long token) {
    MemorySegment s = scratch();
    s.set(JAVA_INT, PARAM_OP_ATTR_MASK, 0); // contiguous bytes, no callback: the flush reports
    long status = UcpNative.putNbx(ep, local, length, remoteAddress, rkey, s.address());
    if (UcsStatus.isError(status)) {
      return UcsStatus.toFiErrno((int) status);
    }
    if (status != 0) {
      UcpNative.requestFree(status); // it completes on its own; the flush below waits for it
    }
    return postFlush(ep, token);
  }

  /** Reads {@code length} bytes at {@code remoteAddress} into {@code local}. */
  int postGet(long ep, long rkey, long remoteAddress, int length, long local, long token) {
    MemorySegment s = scratch();
    s.set(JAVA_INT, PARAM_OP_ATTR_MASK, CALLBACK_MASK); // contiguous bytes
    s.set(JAVA_LONG, PARAM_CB, callback);
    s.set(JAVA_LONG, PARAM_USER_DATA, token);
    return outcome(UcpNative.getNbx(ep, local, length, remoteAddress, rkey, s.address()));
  }

  /**
   * Flushes {@code ep}: completes (DONE, or PENDING then the token) once every operation posted to
   * it before has completed at the target.
   */
  int postFlush(long ep, long token) {
    MemorySegment s = scratch();
    s.set(JAVA_INT, PARAM_OP_ATTR_MASK, CALLBACK_MASK);
    s.set(JAVA_LONG, PARAM_CB, callback);
    s.set(JAVA_LONG, PARAM_USER_DATA, token);
    return outcome(UcpNative.epFlushNbx(ep, s.address()));
  }

  private int outcome(long statusPtr) {
    if (statusPtr == 0) {
      return TransportPeer.DONE;
    }
    if (UcsStatus.isError(statusPtr)) {
      return UcsStatus.toFiErrno((int) statusPtr);
    }
    scratch().set(JAVA_LONG, LAST_REQUEST, statusPtr);
    return TransportPeer.PENDING;
  }

  /**
   * The request of this thread's last post that returned {@link TransportPeer#PENDING}: the one
   * whose completion will carry its token, for {@link PendingRequests}.
   */
  long lastRequest() {
    return scratch().get(JAVA_LONG, LAST_REQUEST);
  }

  /**
   * The upcall, inside ucp_worker_progress. Freeing the request here is allowed: UCX marks it
   * completed before calling back, so ucp_request_free returns it to the pool at once; one of
   * {@link AtomicRequests}' slots goes back to its stack instead (UCX must never free those).
   * Nothing may escape into native code, so whatever is thrown here is kept for {@link
   * #rethrowDeferred}, every one of them; the operation is reported before its request goes back,
   * so it ends even when giving the request back fails.
   */
  @SuppressWarnings("unused") // called through ON_COMPLETE
  private void onComplete(long request, byte status, long token) {
    try {
      // reported while UCX cannot hand the request out again, so that PendingRequests tells this
      // request from a later one at the same address
      completions.completed(request, token, UcsStatus.toFiErrno(status));
    } catch (Throwable t) {
      defer(t);
    }
    try {
      if (requests != null && requests.owns(request)) {
        requests.give(request);
      } else {
        UcpNative.requestFree(request);
      }
    } catch (Throwable t) {
      defer(t);
    }
  }

  /**
   * The upcall of a non-fetching atomic on v2, once UCX is done with its request (sent, or failed):
   * the slot, and the operand in it, go back. The endpoint flush that follows reports the token.
   */
  @SuppressWarnings("unused") // called through ON_SLOT_DONE
  private void onSlotDone(long request, byte status, long unused) {
    try {
      requests.give(request);
    } catch (Throwable t) {
      defer(t);
    }
  }

  private void defer(Throwable t) {
    deferred.add(t);
    anyDeferred = true;
  }

  /**
   * Rethrows, once, what completion handlers threw inside upcalls since the last call: the first,
   * with the others attached as suppressed.
   */
  void rethrowDeferred() {
    if (!anyDeferred) {
      return;
    }
    anyDeferred = false;
    Throwable t = deferred.poll();
    if (t == null) {
      return;
    }
    for (Throwable more; (more = deferred.poll()) != null; ) {
      if (more != t) {
        t.addSuppressed(more);
      }
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException("completion handler failed", t);
  }

  /** How many fetching posts were refused for want of a request slot. */
  long slotsExhausted() {
    return slotsExhausted.get();
  }

  /** Request slots in flight now (approximate while posts and completions run). */
  int requestSlotsInUse() {
    return requests == null ? 0 : requests.inUse();
  }

  /** The request slots, or 0 where UCX cannot purge requests and none are used. */
  int requestSlots() {
    return requests == null ? 0 : requests.slots();
  }

  /** Frees the stub and scratch; only after the worker is destroyed (no more callbacks). */
  void close() {
    arena.close();
  }
}
