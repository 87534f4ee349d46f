package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One thread's calls of one cell: the family's plain call ({@code fi_atomic}, {@code
 * fi_fetch_atomic}, {@code fi_compare_atomic}) on its own elements of the target, with buffers made
 * once. The operand and compare never change, so every call in flight shares them; each window slot
 * has its own result buffer, which a fetching call writes when it completes.
 */
final class CallPoster {
  private final Endpoint ep;
  private final AtomicFamily family;
  private final FiOp op;
  private final FiDatatype datatype;
  private final long count;
  private final BenchConfig cfg;
  private final long peer;
  private final long addr;
  private final long key;
  private final MemorySegment operand;
  private final MemorySegment compare;
  private final MemorySegment[] results;
  private final OneCall oneCall;

  /** The same call through the typed layer ({@code --api typed}), or null. */
  private TypedCall typed;

  /** Every fetched value in completion order (raw bits), or null when not asked to keep them. */
  private long[] fetched;

  private int fetchedCount;

  /**
   * @param addr the byte offset of this thread's first element in the target region
   * @param slots the window: how many calls may be in flight, each with its own result buffer
   */
  CallPoster(Endpoint ep, BenchConfig cfg, long peer, long addr, long key, int slots, Arena arena) {
    this.ep = ep;
    this.family = cfg.family();
    this.op = cfg.op();
    this.datatype = cfg.datatype();
    this.count = cfg.count();
    this.cfg = cfg;
    this.peer = peer;
    this.addr = addr;
    this.key = key;
    long bytes = cfg.callBytes();
    this.operand = repeated(arena, Operands.one(datatype), cfg.count());
    this.compare = repeated(arena, Operands.zero(datatype), cfg.count());
    this.results = new MemorySegment[slots];
    MemorySegment all = arena.allocate(bytes * slots, 64);
    for (int i = 0; i < slots; i++) {
      results[i] = all.asSlice(i * bytes, bytes);
    }
    this.oneCall =
        new OneCall(ep, family, op, datatype, count, peer, addr, key, operand, compare, results[0]);
  }

  private static MemorySegment repeated(Arena arena, byte[] element, int count) {
    MemorySegment s = arena.allocate((long) element.length * count, 64);
    for (int i = 0; i < count; i++) {
      MemorySegment.copy(
          element,
          0,
          s,
          java.lang.foreign.ValueLayout.JAVA_BYTE,
          i * (long) element.length,
          element.length);
    }
    return s;
  }

  /**
   * Keeps the value each completed call fetched, up to {@code calls} of them (the run's calls,
   * warm-up included): the element's bytes as an unsigned little-endian number. Fetching calls with
   * one element of at most 8 bytes only.
   */
  void keepFetched(int calls) {
    fetched = new long[calls];
    fetchedCount = 0;
  }

  /** The values kept so far, in completion order. */
  long[] fetched() {
    return fetched == null ? null : java.util.Arrays.copyOf(fetched, fetchedCount);
  }

  /**
   * From now on the call goes through the typed layer: {@code region}'s method for this cell, on
   * this poster's elements, operands and first result buffer.
   */
  void useTyped(dev.fiucx.AtomicRegion region) {
    typed = TypedCall.of(region, cfg, addr, operand, results[0]);
  }

  /** The typed call, or null when the calls are the mirror's. */
  TypedCall typed() {
    return typed;
  }

  /** A typed call completed having fetched {@code bits}: keep them, when asked to. */
  void completedWith(long bits) {
    if (fetched != null && fetchedCount < fetched.length) {
      fetched[fetchedCount++] = bits;
    }
  }

  /** The call in window slot {@code slot} completed: keep what it fetched, when asked to. */
  void completed(int slot) {
    if (fetched != null && fetchedCount < fetched.length) {
      fetched[fetchedCount++] = rawBits(results[slot], datatype.size());
    }
  }

  private static long rawBits(MemorySegment s, int size) {
    return switch (size) {
      case 1 -> Byte.toUnsignedLong(s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
      case 2 -> Short.toUnsignedLong(s.get(LE_SHORT, 0));
      case 4 -> Integer.toUnsignedLong(s.get(LE_INT, 0));
      default -> s.get(LE_LONG, 0);
    };
  }

  private static final java.lang.foreign.ValueLayout.OfShort LE_SHORT =
      java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(
          java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final java.lang.foreign.ValueLayout.OfInt LE_INT =
      java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
  private static final java.lang.foreign.ValueLayout.OfLong LE_LONG =
      java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  /** The call of window slot 0 without a context, for a loop with one call in flight. */
  OneCall oneCall() {
    return oneCall;
  }

  /**
   * Every argument of one call, in a record because the JIT trusts a record's fields never to
   * change: a loop that holds it in a local keeps them out of the loop, where this poster's final
   * fields (and its result array's element) are loaded again after every call the JIT cannot
   * inline. In one JVM, bench's one-in-flight loop cost 1.11x per call through {@link #post} (16
   * pairs).
   */
  record OneCall(
      Endpoint ep,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long count,
      long peer,
      long addr,
      long key,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result) {

    /** Posts the call; 0 or a negative fi_errno, never throws. */
    int post() {
      return switch (family) {
        case BASE -> ep.atomic(operand, count, null, peer, addr, key, datatype, op, null);
        case FETCH ->
            ep.fetchAtomic(operand, count, null, result, null, peer, addr, key, datatype, op, null);
        case COMPARE ->
            ep.compareAtomic(
                operand, count, null, compare, null, result, null, peer, addr, key, datatype, op,
                null);
      };
    }
  }

  /** Posts one call into window slot {@code slot}; 0 or a negative fi_errno, never throws. */
  int post(int slot, Object context) {
    return switch (family) {
      case BASE -> ep.atomic(operand, count, null, peer, addr, key, datatype, op, context);
      case FETCH ->
          ep.fetchAtomic(
              operand, count, null, results[slot], null, peer, addr, key, datatype, op, context);
      case COMPARE ->
          ep.compareAtomic(
              operand,
              count,
              null,
              compare,
              null,
              results[slot],
              null,
              peer,
              addr,
              key,
              datatype,
              op,
              context);
    };
  }
}
