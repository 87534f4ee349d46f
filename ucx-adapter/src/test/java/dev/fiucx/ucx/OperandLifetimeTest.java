package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import dev.fiucx.spi.TransportPeer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every atomic's operand reaches the target as it was posted, with thousands of atomics in flight,
 * on the protocols the loaded UCX series runs by default and on each protocol generation forced:
 * the guard for {@link AtomicPoster}'s operands (one scratch word on v1, a request slot each on
 * v2), which a word shared by all posts would break wherever UCX reads an operand after {@code
 * ucp_atomic_op_nbx} returned.
 *
 * <p>Each post carries an operand no other post has: ADD of its index + 1 on an 8-byte and a 4-byte
 * word, fetching and not; XOR of a pattern of its own on an 8-byte and a 4-byte word, not fetching
 * (the path that gives a slot back from its own callback and reports through a flush). The words
 * sit in allocated memory (shared memory: CPU atomics) and in registered memory (software atomics,
 * which the target executes; over tcp all are). Every {@link #POSTS_PER_PEER} posts go to a peer
 * connected just before them and resolved without either side progressing, as when the target's
 * answer over the control endpoint overtakes the data endpoint's wire-up, so UCX holds the first
 * ones until the wire-up ends. Nobody progresses until {@link #IN_FLIGHT} posts are outstanding:
 * over shared memory the FIFO fills and UCX queues posts behind it, over tcp they wait for the
 * target's progress.
 *
 * <p>Then each word must hold the sum or XOR of exactly its operands, and the old values the ADDs
 * fetched must fit one serial order of exactly those ADDs: ordered by fetched value, each fetched
 * old value plus its operand is at most the next one fetched, and the last at most the total.
 *
 * <p>What it cannot show on UCX 1.13.1, 1.18.1 and 1.23.0~rc1: there a shared word passes too, even
 * one overwritten right after each call. Their v2 protocols copy the operand at a request's first
 * progress, which {@code ucp_atomic_op_nbx} runs itself, queued or not; only UCX's "reconfig"
 * placeholder defers the copy, chosen where an endpoint's configuration has no protocol for the
 * operation yet (a client-server endpoint during its wire-up), which the worker-address endpoints
 * here never are. The slots keep UCX's contract (the buffer is UCX's until the request completes)
 * for a release or an endpoint that does defer it; a post that carries another post's operand fails
 * this test.
 */
@RequiresUcx
class OperandLifetimeTest {
  private static final int POSTS = 20_000;

  /** Posts outstanding before the test progresses either side; below the 4096 request slots. */
  private static final int IN_FLIGHT = 2_000;

  /** Posts on each fresh peer, whose first ones meet its wire-up. */
  private static final int POSTS_PER_PEER = 1_000;

  private static final long TIMEOUT_NANOS = 60_000_000_000L;
  private static final long RESULT_SENTINEL = 0xA5A5_A5A5_A5A5_A5A5L;

  /** The four words of a target region, each with its own kind of post. */
  private enum Word {
    ADD8(RemoteAtomicOp.ADD, 8, 0),
    ADD4(RemoteAtomicOp.ADD, 4, 8),
    XOR8(RemoteAtomicOp.XOR, 8, 16),
    XOR4(RemoteAtomicOp.XOR, 4, 24);

    final RemoteAtomicOp op;
    final int size;
    final long offset;

    Word(RemoteAtomicOp op, int size, long offset) {
      this.op = op;
      this.size = size;
      this.offset = offset;
    }

    long mask() {
      return size == 8 ? -1L : 0xFFFF_FFFFL;
    }
  }

  private static final Word[] WORDS = Word.values();
  private static final Memory[] MEMORIES = Memory.values();

  /** UCX_PROTO_ENABLE for both transports: the series' choice, or forced. */
  enum Protocols {
    SERIES_DEFAULT(null),
    FORCED_V1("n"),
    FORCED_V2("y");

    final String protoEnable;

    Protocols(String protoEnable) {
      this.protoEnable = protoEnable;
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String transports : new String[] {"tcp", "shm"}) {
      for (Protocols p : Protocols.values()) {
        out.add(Arguments.of(transports, p));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void everyOperandArrivesAsPosted(String transports, Protocols protocols) {
    UcxSeries series = UcxSeries.loaded();
    UcxOptions options = UcxOptions.defaults().withTransports(transports).withDirectPath(false);
    try (Arena arena = Arena.ofShared();
        TransportPair pair = new TransportPair(options, protocols.protoEnable)) {
      String inUse = pair.a.describe().get("ucx.protocols");
      assertEquals(expectedGeneration(protocols, series), inUse.substring(0, 2), inUse);
      new Run(pair, arena).postAll().check();
    }
  }

  private static String expectedGeneration(Protocols protocols, UcxSeries series) {
    return switch (protocols) {
      case SERIES_DEFAULT -> series.protocolV1Only() ? "v1" : "v2";
      case FORCED_V1 -> "v1";
      case FORCED_V2 -> "v2";
    };
  }

  /** The posts of one case and what they left behind. */
  private static final class Run {
    private final TransportPair pair;
    private final UcxExposedRegion[] regions = new UcxExposedRegion[MEMORIES.length];
    private final UcxPeer[] peers = new UcxPeer[POSTS / POSTS_PER_PEER];
    private final RemoteRegion[][] remotes = new RemoteRegion[peers.length][];
    private final MemorySegment results;
    private final boolean[] doneAtOnce = new boolean[POSTS];
    private int doneAtOnceCount;

    Run(TransportPair pair, Arena arena) {
      this.pair = pair;
      for (int m = 0; m < MEMORIES.length; m++) {
        regions[m] = (UcxExposedRegion) MEMORIES[m].expose(pair.b, arena, 32);
        regions[m].segment().fill((byte) 0);
      }
      results = arena.allocate(8L * POSTS, 8);
      for (int i = 0; i < POSTS; i++) {
        results.set(JAVA_LONG, 8L * i, RESULT_SENTINEL);
      }
    }

    Run postAll() {
      long deadline = System.nanoTime() + TIMEOUT_NANOS;
      for (int i = 0; i < POSTS; ) {
        int p = i / POSTS_PER_PEER;
        if (peers[p] == null) {
          connectUnwired(p);
        }
        Word w = wordOf(i);
        int rc =
            peers[p].postAtomic(
                remotes[p][memoryOf(i)],
                w.offset,
                w.op,
                w.size,
                operandOf(i),
                fetches(i) ? results.address() + 8L * i : 0,
                tokenOf(i));
        if (rc == -FiErrno.EAGAIN) {
          assertTrue(System.nanoTime() - deadline < 0, "post " + i + " refused until the timeout");
          pair.progressBoth(); // every request slot in flight: the post waits for one
          continue;
        }
        if (rc == TransportPeer.DONE) {
          doneAtOnce[i] = true;
          doneAtOnceCount++;
        } else {
          assertEquals(TransportPeer.PENDING, rc, "post " + i);
        }
        i++;
        // nobody progresses until IN_FLIGHT are outstanding, then only until half of them are
        // done, so that new posts keep joining requests UCX still holds
        if (outstanding(i) >= IN_FLIGHT) {
          while (outstanding(i) > IN_FLIGHT / 2) {
            assertTrue(System.nanoTime() - deadline < 0, "posts stopped completing");
            pair.progressBoth();
          }
        }
      }
      while (outstanding(POSTS) > 0) {
        assertTrue(System.nanoTime() - deadline < 0, "not every post completed");
        pair.progressBoth();
      }
      awaitTargetAnswers();
      return this;
    }

    private int outstanding(int posted) {
      return posted - doneAtOnceCount - pair.completionsA.count();
    }

    /**
     * Connects peer {@code p} and gives it the target's answers to its RESOLVEs at once, before
     * either side progresses: the data endpoint's wire-up has just begun.
     */
    private void connectUnwired(int p) {
      peers[p] = p == 0 ? pair.aToB : (UcxPeer) pair.a.connect(pair.b.address());
      remotes[p] = new RemoteRegion[MEMORIES.length];
      for (int m = 0; m < MEMORIES.length; m++) {
        UcxExposedRegion region = regions[m];
        UcxPeer.PendingResolve resolving = peers[p].startResolve(region.key());
        peers[p].onResolveReply(
            new ControlMessage.ResolveReply(
                resolving.requestId,
                peers[p].id(),
                peers[p].secret(),
                true,
                false,
                region.segment().address(),
                region.segment().byteSize(),
                region.access(),
                region.packedRkey()));
        assertTrue(resolving.done);
        assertEquals(0, resolving.status);
        remotes[p][m] = peers[p].cached(region.key());
      }
    }

    void check() {
      for (int i = 0; i < POSTS; i++) {
        if (!doneAtOnce[i]) {
          assertEquals(0, pair.completionsA.status(tokenOf(i)), "status of post " + i);
        }
      }
      for (int m = 0; m < MEMORIES.length; m++) {
        MemorySegment target = regions[m].segment();
        for (Word w : WORDS) {
          String where = MEMORIES[m] + " " + w;
          assertEquals(expectedFinal(m, w), read(target, w.offset, w.size), where);
          if (w.size == 4) {
            assertEquals(0, target.get(JAVA_INT, w.offset + 4), where + ": upper half touched");
          }
          if (w.op == RemoteAtomicOp.ADD) {
            checkFetchedOldValues(m, w, where);
          }
        }
      }
      for (int i = 0; i < POSTS; i++) {
        if (!fetches(i)) {
          assertEquals(RESULT_SENTINEL, results.get(JAVA_LONG, 8L * i), "no fetch, no write " + i);
        } else if (wordOf(i).size == 4) {
          assertEquals(
              (int) (RESULT_SENTINEL >>> 32), results.get(JAVA_INT, 8L * i + 4), "overrun " + i);
        }
      }
    }

    /**
     * Asks the target for every region again, through every peer, and waits for its answers: they
     * must name what the posts used, and waiting for them lets every control exchange end before
     * the pair closes, whatever the checks find (UCX 1.13.1 aborts when an endpoint fails with a
     * wire-up reply still queued on it, as when its peer closed first).
     */
    private void awaitTargetAnswers() {
      for (int p = 0; p < peers.length; p++) {
        for (int m = 0; m < MEMORIES.length; m++) {
          long key = regions[m].key();
          UcxPeer.PendingResolve resolving = peers[p].startResolve(key);
          long deadline = System.nanoTime() + TransportPair.TIMEOUT_NANOS;
          while (!resolving.done) {
            assertTrue(System.nanoTime() - deadline < 0, "no answer to resolve");
            pair.progressBoth();
          }
          assertEquals(0, resolving.status);
          assertEquals(remotes[p][m], peers[p].cached(key), "the target's answer matches");
        }
      }
    }

    /**
     * The fetched old values of word {@code w}'s ADDs in region {@code m}, in order, leave room for
     * each one's own operand: intervals [old, old + operand) that do not overlap and end at or
     * before the total. A post that carried another post's operand breaks this or the total.
     */
    private void checkFetchedOldValues(int m, Word w, String where) {
      List<long[]> fetched = new ArrayList<>();
      for (int i = 0; i < POSTS; i++) {
        if (memoryOf(i) == m && wordOf(i) == w && fetches(i)) {
          fetched.add(new long[] {read(results, 8L * i, w.size), operandOf(i), i});
        }
      }
      assertTrue(fetched.size() > POSTS / 16, where + ": too few fetching posts to check");
      long[][] byOld = fetched.toArray(long[][]::new);
      Arrays.sort(byOld, (x, y) -> Long.compare(x[0], y[0]));
      for (int k = 0; k + 1 < byOld.length; k++) {
        long end = byOld[k][0] + byOld[k][1];
        assertTrue(
            end <= byOld[k + 1][0],
            where
                + ": post "
                + byOld[k][2]
                + " fetched "
                + byOld[k][0]
                + " and added "
                + byOld[k][1]
                + ", yet post "
                + byOld[k + 1][2]
                + " fetched "
                + byOld[k + 1][0]);
      }
      long[] last = byOld[byOld.length - 1];
      assertTrue(last[0] + last[1] <= expectedFinal(m, w), where + ": the last fetch overshoots");
    }
  }

  /** The sum or XOR of every operand posted to word {@code w} of region {@code m}. */
  private static long expectedFinal(int m, Word w) {
    long total = 0;
    for (int i = 0; i < POSTS; i++) {
      if (memoryOf(i) == m && wordOf(i) == w) {
        total = w.op == RemoteAtomicOp.ADD ? total + operandOf(i) : total ^ operandOf(i);
      }
    }
    return total & w.mask();
  }

  private static Word wordOf(int i) {
    return WORDS[i % WORDS.length];
  }

  private static int memoryOf(int i) {
    return (i / WORDS.length) % MEMORIES.length;
  }

  /** Two of every three ADDs fetch, in runs, so fetching and non-fetching ADDs interleave. */
  private static boolean fetches(int i) {
    return wordOf(i).op == RemoteAtomicOp.ADD && (i / 8) % 3 != 0;
  }

  /**
   * ADD: the post's index + 1 (each word's sum stays far below 2^31); XOR: a bit pattern of its
   * own, with bits in both halves of an 8-byte word.
   */
  private static long operandOf(int i) {
    if (wordOf(i).op == RemoteAtomicOp.ADD) {
      return i + 1;
    }
    long z = (i + 1) * 0x9E37_79B9_7F4A_7C15L; // splitmix64: a bijection on 64-bit words
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return (z ^ (z >>> 31)) & wordOf(i).mask();
  }

  private static long tokenOf(int i) {
    return i + 1L;
  }

  private static long read(MemorySegment s, long offset, int size) {
    return size == 8 ? s.get(JAVA_LONG, offset) : Integer.toUnsignedLong(s.get(JAVA_INT, offset));
  }
}
