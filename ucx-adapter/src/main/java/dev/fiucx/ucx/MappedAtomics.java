package dev.fiucx.ucx;

import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_ADD;
import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_AND;
import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_CSWAP;
import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_OR;
import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_SWAP;
import static dev.fiucx.ucx.UcxConstants.UCP_ATOMIC_OP_XOR;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.fiucx.spi.MappedWords;
import dev.fiucx.spi.RemoteAtomicOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The direct path's moves on a peer's region that UCX mapped into this process ({@code
 * ucp_rkey_ptr}), the way Open MPI's OpenSHMEM reaches peers on the same node: the atomics are
 * {@link MappedWords}' (one LOCK-prefixed instruction each on the shared page: the same
 * instructions UCX's shared-memory transports run for their atomics and a target runs for UCX's
 * software atomics, so they are atomic against every initiator whose atomics the CPU executes;
 * never against NIC "device" atomics, which is why {@link UcxTransport} allows the mapping only
 * when UCX uses no device atomics); here are the result stores, the lock's copies and the self-test
 * that must pass before the mapping is used. Every op is finished when the call returns, so the
 * poster reports it done at once.
 *
 * <p>Offsets are checked by the engine before anything is posted (inside the region, aligned to the
 * word), so these accessors meet no bounds or alignment failure.
 */
final class MappedAtomics {
  /** ucp_atomic_op_t names, by value. */
  private static final String[] OPCODE_NAMES = {"ADD", "SWAP", "CSWAP", "AND", "OR", "XOR"};

  /** The RemoteAtomicOp ordinal of each ucp_atomic_op_t value. */
  private static final int[] OPS = new int[OPCODE_NAMES.length];

  static {
    for (int i = 0; i < OPS.length; i++) {
      OPS[i] = RemoteAtomicOp.valueOf(OPCODE_NAMES[i]).ordinal();
    }
  }

  private MappedAtomics() {}

  /** Writes a fetched word to the caller's result buffer (any alignment). */
  static void store(long address, int size, long value) {
    if (size == 8) {
      UcpNative.ALL.set(JAVA_LONG_UNALIGNED, address, value);
    } else {
      UcpNative.ALL.set(JAVA_INT_UNALIGNED, address, (int) value);
    }
  }

  /** The lock's read of an element it holds: a plain copy, as UCX's shared-memory get is. */
  static void get(MemorySegment mapping, long offset, int length, long local) {
    copy(mapping, offset, UcpNative.ALL, local, length);
  }

  /** The lock's write-back of an element it holds; visible to all once the release CAS follows. */
  static void put(MemorySegment mapping, long offset, int length, long local) {
    copy(UcpNative.ALL, local, mapping, offset, length);
  }

  /**
   * The lock's elements are whole words (16 or 32 bytes): a word at a time, as a bulk copy spends
   * longer choosing how to copy than copying at these sizes.
   */
  private static void copy(MemorySegment src, long srcOff, MemorySegment dst, long dstOff, int n) {
    if ((n & 7) != 0) {
      MemorySegment.copy(src, srcOff, dst, dstOff, n);
      return;
    }
    for (int i = 0; i < n; i += 8) {
      dst.set(JAVA_LONG_UNALIGNED, dstOff + i, src.get(JAVA_LONG_UNALIGNED, srcOff + i));
    }
  }

  /**
   * Runs every op on both sizes once on scratch memory and checks old and new values, as {@link
   * dev.fiucx.dispatch.NativeAtomicsProof} does for UCX's own atomics: the mapped path is used only
   * once seen right here. Returns null when all are right, else what went wrong.
   */
  static String selfTest() {
    final long initial = 0x0123456789ABCDEFL;
    final long operand = 0x0FF00FF0F00FF00FL;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment word = arena.allocate(8, 8);
      for (int size : new int[] {4, 8}) {
        long mask = size == 8 ? -1L : 0xFFFF_FFFFL;
        long a = initial & mask;
        long b = operand & mask;
        // the read (an ADD of 0) takes its own path
        long whole = size == 8 ? a : a | 0xAAAA_AAAA_0000_0000L;
        word.set(JAVA_LONG, 0, whole);
        long read = MappedWords.apply(word, 0, RemoteAtomicOp.ADD, size, 0);
        if (read != a || word.get(JAVA_LONG, 0) != whole) {
          return "CPU atomic read (ADD of 0) on "
              + size
              + " bytes fetched 0x"
              + Long.toHexString(read)
              + " and left 0x"
              + Long.toHexString(word.get(JAVA_LONG, 0));
        }
        for (int opcode :
            new int[] {
              UCP_ATOMIC_OP_ADD,
              UCP_ATOMIC_OP_SWAP,
              UCP_ATOMIC_OP_AND,
              UCP_ATOMIC_OP_OR,
              UCP_ATOMIC_OP_XOR,
              UCP_ATOMIC_OP_CSWAP
            }) {
          word.set(JAVA_LONG, 0, size == 8 ? a : a | 0xAAAA_AAAA_0000_0000L);
          long old =
              opcode == UCP_ATOMIC_OP_CSWAP
                  ? MappedWords.compareSwap(word, 0, size, a, b)
                  : MappedWords.apply(word, 0, RemoteAtomicOp.values()[OPS[opcode]], size, b);
          long expected =
              switch (opcode) {
                    case UCP_ATOMIC_OP_ADD -> a + b;
                    case UCP_ATOMIC_OP_AND -> a & b;
                    case UCP_ATOMIC_OP_OR -> a | b;
                    case UCP_ATOMIC_OP_XOR -> a ^ b;
                    default -> b;
                  }
                  & mask;
          long now = word.get(JAVA_LONG, 0);
          long untouched = size == 8 ? 0 : 0xAAAA_AAAA_0000_0000L;
          if (old != a || now != (expected | untouched)) {
            return "CPU atomic "
                + OPCODE_NAMES[opcode]
                + " on "
                + size
                + " bytes fetched 0x"
                + Long.toHexString(old)
                + " and left 0x"
                + Long.toHexString(now);
          }
        }
      }
    }
    return null;
  }
}
