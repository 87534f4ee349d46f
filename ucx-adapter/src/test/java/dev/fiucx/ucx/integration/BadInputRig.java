package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.DynamicTest;

/**
 * What every bad-input case shares, per transport: a target process with a patterned region, a
 * second one that grants remote reads only, an initiator in this process, and buffers of every
 * kind. A case is a call and the errno it must return; after it both targets' bytes must be what
 * they were, and the same endpoint must then do an exact fetch SUM (of the probe element, whose
 * value the rig tracks).
 */
final class BadInputRig implements AutoCloseable {
  static final int REGION = 4096;

  /** The probe element: a UINT64 that every case's fetch SUM moves by one. */
  static final long PROBE = REGION - 64;

  static final int READ_ONLY_REGION = 64;

  final String transport;
  final RemoteTarget target;
  final RemoteTarget readOnly;
  final Initiator ini;
  final long peer;
  final long readOnlyPeer;
  final long key;
  final long readOnlyKey;
  final Arena arena = Arena.ofShared();

  /** 8 bytes of 1 (UINT64 1), 32 bytes in all. */
  final MemorySegment one;

  /** 4 UINT64 of 1. */
  final MemorySegment ones;

  /** Results of up to 512 elements of 8 bytes. */
  final MemorySegment result;

  /** Buffers no call may take where Java reads or the transport writes. */
  final MemorySegment freed;

  final MemorySegment foreign;
  final MemorySegment readOnlyView;
  final MemorySegment heap;

  private final List<AutoCloseable> extras = new ArrayList<>();
  private final byte[] pattern = new byte[REGION];
  private final byte[] readOnlyPattern = new byte[READ_ONLY_REGION];
  private final CqEntry[] entries = {new CqEntry()};
  private long probeValue;
  private int probes;

  BadInputRig(String transport) {
    this.transport = transport;
    target = new RemoteTarget("ucx", transport, REGION, false, false, List.of());
    readOnly = new RemoteTarget("ucx", transport, READ_ONLY_REGION, false, true, List.of());
    ini = new Initiator("ucx", transport, DomainAttr.Progress.AUTO);
    peer = ini.av.insert(target.address());
    readOnlyPeer = ini.av.insert(readOnly.address());
    key = target.key();
    readOnlyKey = readOnly.key();
    for (int i = 0; i < REGION; i++) {
      pattern[i] = (byte) (i * 7 + 3);
    }
    for (int i = 0; i < 8; i++) {
      pattern[(int) PROBE + i] = 0;
    }
    target.set(0, pattern);
    for (int i = 0; i < READ_ONLY_REGION; i++) {
      readOnlyPattern[i] = (byte) (i * 5 + 1);
    }
    readOnly.set(0, readOnlyPattern);
    one = arena.allocate(32, 16);
    one.set(ValueLayout.JAVA_LONG, 0, 1);
    ones = arena.allocate(32, 16);
    for (int i = 0; i < 4; i++) {
      ones.setAtIndex(ValueLayout.JAVA_LONG, i, 1);
    }
    result = arena.allocate(512 * 8, 16);
    Arena gone = Arena.ofConfined();
    freed = gone.allocate(64, 16);
    gone.close();
    foreign = confinedToAnotherThread();
    readOnlyView = arena.allocate(64, 16).asReadOnly();
    heap = MemorySegment.ofArray(new long[8]);
  }

  /** A segment of a confined arena that belongs to a thread that has ended (never closed). */
  private static MemorySegment confinedToAnotherThread() {
    MemorySegment[] s = new MemorySegment[1];
    Thread t = new Thread(() -> s[0] = Arena.ofConfined().allocate(64, 16), "foreign-arena");
    t.start();
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return s[0];
  }

  /** Closes {@code o} when the rig closes; returns it. */
  <T extends AutoCloseable> T later(T o) {
    extras.add(o);
    return o;
  }

  /** Another process or thread added {@code n} to the probe element (by fetch SUMs of 1). */
  void probeMovedBy(long n) {
    probeValue += n;
    for (int i = 0; i < 8; i++) {
      pattern[(int) PROBE + i] = (byte) (probeValue >>> (8 * i));
    }
  }

  /** The probe element's value now. */
  long probeValue() {
    return probeValue;
  }

  /** A buffer of the given kind and at least {@code bytes} bytes, for a result or operand. */
  MemorySegment buffer(Kind kind, long bytes) {
    return switch (kind) {
      case NULL -> null;
      case SHORT -> arena.allocate(Math.max(1, bytes - 1), 1);
      case FREED -> freed;
      case FOREIGN -> foreign;
      case READ_ONLY_VIEW -> readOnlyView;
      case HEAP -> heap;
    };
  }

  /** The kinds of bad local buffer. */
  enum Kind {
    NULL,
    SHORT,
    FREED,
    FOREIGN,
    READ_ONLY_VIEW,
    HEAP
  }

  /** A case: its name, the errno it must return, the call. */
  record Case(String name, int errno, IntSupplier call) {}

  /** The case's call returns {@code -errno}. */
  static Case of(String name, int errno, IntSupplier call) {
    return new Case(name, errno, call);
  }

  /** A set-up call that must throw {@link FiException} with {@code errno}. */
  static Case throwing(String name, int errno, Runnable call) {
    return new Case(
        name,
        errno,
        () -> {
          try {
            call.run();
          } catch (FiException e) {
            return -e.errno();
          }
          return 0;
        });
  }

  /** The cases as dynamic tests of this transport. */
  List<DynamicTest> tests(List<Case> cases) {
    List<DynamicTest> tests = new ArrayList<>();
    for (Case c : cases) {
      tests.add(DynamicTest.dynamicTest(transport + ": " + c.name(), () -> run(c)));
    }
    return tests;
  }

  void run(Case c) {
    int rc = c.call().getAsInt();
    assertEquals(FiErrno.errorString(-c.errno()), FiErrno.errorString(rc), c.name());
    assertUnchanged();
    probe();
  }

  /** Both targets hold what they held before the case. */
  void assertUnchanged() {
    assertArrayEquals(pattern, target.get(0, REGION), "the target's region changed");
    assertArrayEquals(
        readOnlyPattern, readOnly.get(0, READ_ONLY_REGION), "the read-only target changed");
  }

  /** The same endpoint does an exact fetch SUM of 1 on the probe. */
  void probe() {
    MemorySegment fetched = arena.allocate(8, 8);
    String context = "probe " + probes++;
    int rc =
        ini.ep.fetchAtomic(
            one, 1, null, fetched, null, peer, PROBE, key, FiDatatype.UINT64, FiOp.SUM, context);
    assertEquals(0, rc, "the probe's fetch SUM: " + FiErrno.errorString(rc));
    awaitContext(context);
    assertEquals(probeValue, fetched.get(ValueLayout.JAVA_LONG, 0), "the probe fetched");
    probeMovedBy(1);
    assertUnchanged();
  }

  /** Reads completions until the one with {@code context}; any other is a failure. */
  void awaitContext(Object context) {
    int n = ini.cq.sread(entries, 1, 10_000);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      ini.cq.readErr(e);
      fail("error entry instead of " + context + ": " + e);
    }
    assertEquals(1, n, "no completion for " + context + ": " + FiErrno.errorString(n));
    assertEquals(context, entries[0].opContext, "a completion no case asked for");
  }

  @Override
  public void close() {
    for (int i = extras.size() - 1; i >= 0; i--) {
      try {
        extras.get(i).close();
      } catch (Exception e) {
        // the rest must still close; a failure here is not what the suite checks
      }
    }
    ini.close();
    readOnly.close();
    target.close();
    arena.close();
  }
}
