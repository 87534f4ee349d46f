package dev.fiucx.conformance.suite;

import dev.fiucx.AtomicAttr;
import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.Mechanism;
import dev.fiucx.RmaIoc;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.RemoteTarget;
import dev.fiucx.conformance.suite.CheckResult.Status;
import dev.fiucx.semantics.ElementSemantics;
import dev.fiucx.semantics.LongDouble;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The operation flags and what surrounds a call, checked once per mechanism on a base SUM cell of
 * that mechanism: FI_INJECT (the buffer is the caller's again on return, no completion),
 * FI_COMPLETION under selective completion, FI_FENCE, FI_MORE, counters; and once per run, error
 * entries from a peer that dies.
 */
final class FlagChecks {
  /** Datatypes tried, in order, for a mechanism's representative SUM cell. */
  private static final FiDatatype[] CANDIDATES = {
    FiDatatype.UINT64,
    FiDatatype.INT32,
    FiDatatype.INT8,
    FiDatatype.UINT16,
    FiDatatype.DOUBLE,
    FiDatatype.FLOAT,
    FiDatatype.FLOAT_COMPLEX,
    FiDatatype.DOUBLE_COMPLEX,
    FiDatatype.LONG_DOUBLE,
    FiDatatype.LONG_DOUBLE_COMPLEX
  };

  private static final long BASE = AtomicCall.REMOTE_BASE;
  private final Rig rig;

  FlagChecks(Rig rig) {
    this.rig = rig;
  }

  /** The checks of every mechanism the provider reports for some SUM cell, then error entries. */
  List<CheckResult> check() {
    List<CheckResult> out = new ArrayList<>();
    Set<Mechanism> seen = new HashSet<>();
    for (FiDatatype dt : CANDIDATES) {
      Mechanism m = mechanism(AtomicFamily.BASE, FiOp.SUM, dt);
      if (m == null
          || !seen.add(m)
          || mechanism(AtomicFamily.FETCH, FiOp.SUM, dt) == null
          || mechanism(AtomicFamily.FETCH, FiOp.ATOMIC_READ, dt) == null) {
        continue;
      }
      out.add(run("FI_INJECT", AtomicFamily.BASE, dt, m, () -> inject(dt)));
      out.add(run("FI_COMPLETION", AtomicFamily.BASE, dt, m, () -> selectiveCompletion(dt)));
      out.add(run("FI_FENCE", AtomicFamily.BASE, dt, m, () -> fence(dt)));
      out.add(run("FI_MORE", AtomicFamily.FETCH, dt, m, () -> more(dt)));
      out.add(run("counters", AtomicFamily.BASE, dt, m, () -> counters(dt)));
    }
    out.add(errorEntries());
    return out;
  }

  private Mechanism mechanism(AtomicFamily family, FiOp op, FiDatatype dt) {
    try {
      AtomicAttr attr = rig.domain.queryAtomic(dt, op, family.queryFlag());
      return attr.mechanism();
    } catch (FiException e) {
      return null;
    }
  }

  private static CheckResult run(
      String call, AtomicFamily family, FiDatatype dt, Mechanism m, Supplier<String> check) {
    String problem;
    try {
      problem = check.get();
    } catch (RuntimeException e) {
      problem = "threw " + e;
    }
    return new CheckResult(
        family,
        FiOp.SUM,
        dt,
        call,
        m,
        problem == null ? Status.PASS : Status.FAIL,
        problem == null ? "" : problem);
  }

  /** fi_atomicmsg with FI_INJECT: no completion, the buffer reusable at once, the target exact. */
  private String inject(FiDatatype dt) {
    int n = 3;
    byte[] before = startingElements(dt, n);
    MemorySegment buf = rig.operand(repeat(one(dt), n));
    long writes = rig.writes.read();
    int rc = rig.ep.atomicmsg(msg(buf, n, dt, FiOp.SUM, "inject"), FiFlags.INJECT);
    if (rc != 0) {
      return "fi_atomicmsg(FI_INJECT) returned " + FiErrno.errorString(rc);
    }
    buf.fill((byte) 0x77); // the caller's again: this must not reach the target
    String problem = Rig.awaitCount(rig.writes, writes + 1, "write");
    if (problem == null) {
      problem = rig.expectNoCompletion(rig.cq);
    }
    return problem != null ? problem : expectTarget(dt, before, n, 1);
  }

  /**
   * Under FI_SELECTIVE_COMPLETION only the msg call that asks with FI_COMPLETION writes an entry;
   * the counter still counts all three calls.
   */
  private String selectiveCompletion(FiDatatype dt) {
    byte[] before = startingElements(dt, 1);
    CompletionQueue cq = rig.domain.openCompletionQueue(16);
    Counter writes = rig.domain.openCounter();
    Endpoint ep = rig.domain.openEndpoint();
    try {
      ep.bind(rig.av);
      ep.bind(cq, FiFlags.TRANSMIT | FiFlags.SELECTIVE_COMPLETION);
      ep.bind(writes, FiFlags.WRITE);
      ep.enable();
      MemorySegment buf = rig.operand(one(dt));
      int rc = ep.atomic(buf, 1, null, rig.peer, BASE, rig.key, dt, FiOp.SUM, "quiet");
      if (rc == 0) {
        rc = ep.atomicmsg(msg(buf, 1, dt, FiOp.SUM, "quiet msg"), 0);
      }
      if (rc == 0) {
        rc = ep.atomicmsg(msg(buf, 1, dt, FiOp.SUM, "loud"), FiFlags.COMPLETION);
      }
      if (rc != 0) {
        return "a call returned " + FiErrno.errorString(rc);
      }
      String problem = Rig.awaitCount(writes, 3, "write");
      if (problem == null) {
        problem = rig.awaitCompletion(cq, "loud", FiFlags.ATOMIC | FiFlags.WRITE);
      }
      if (problem == null) {
        problem = rig.expectNoCompletion(cq);
      }
      return problem != null ? problem : expectTarget(dt, before, 1, 3);
    } finally {
      ep.close();
      writes.close();
      cq.close();
    }
  }

  /** 50 SUMs, then a fenced ATOMIC_READ of the same element: it sees all 50. */
  private String fence(FiDatatype dt) {
    int sums = 50;
    byte[] before = startingElements(dt, 1);
    MemorySegment buf = rig.operand(one(dt));
    for (int i = 0; i < sums; i++) {
      int rc = rig.ep.atomic(buf, 1, null, rig.peer, BASE, rig.key, dt, FiOp.SUM, "sum");
      if (rc != 0) {
        return "SUM " + i + " returned " + FiErrno.errorString(rc);
      }
    }
    MemorySegment result = rig.result(dt.size(), (byte) 0xEE);
    AtomicMsg read =
        new AtomicMsg(
            new Ioc[] {new Ioc(null, 1)},
            null,
            rig.peer,
            new RmaIoc[] {new RmaIoc(BASE, 1, rig.key)},
            dt,
            FiOp.ATOMIC_READ,
            "fenced",
            0);
    int rc =
        rig.ep.fetchAtomicmsg(
            read, new Ioc[] {new Ioc(result, 1)}, null, 1, FiFlags.COMPLETION | FiFlags.FENCE);
    if (rc != 0) {
      return "the fenced read returned " + FiErrno.errorString(rc);
    }
    for (int i = 0; i <= sums; i++) {
      String problem = rig.awaitCompletion(i < sums ? "sum" : "fenced", flagsOf(i < sums));
      if (problem != null) {
        return "completion " + i + ": " + problem;
      }
    }
    byte[] expected = summed(dt, before, 1, sums);
    String problem =
        ImageComparison.difference(
            "fenced read", dt, expected, result.toArray(ValueLayout.JAVA_BYTE));
    return problem != null ? problem : expectTarget(dt, before, 1, sums);
  }

  private static long flagsOf(boolean write) {
    return FiFlags.ATOMIC | (write ? FiFlags.WRITE : FiFlags.READ);
  }

  /** Eight fetching SUMs on eight elements posted with FI_MORE but the last: all complete. */
  private String more(FiDatatype dt) {
    int n = 8;
    byte[] before = startingElements(dt, n);
    MemorySegment buf = rig.operand(one(dt));
    MemorySegment results = rig.result(n * dt.size(), (byte) 0xEE);
    String[] contexts = new String[n];
    for (int i = 0; i < n; i++) {
      contexts[i] = "more " + i;
      AtomicMsg m =
          new AtomicMsg(
              new Ioc[] {new Ioc(buf, 1)},
              null,
              rig.peer,
              new RmaIoc[] {new RmaIoc(BASE + (long) i * dt.size(), 1, rig.key)},
              dt,
              FiOp.SUM,
              contexts[i],
              0);
      Ioc[] result = {new Ioc(results.asSlice((long) i * dt.size(), dt.size()), 1)};
      int rc = rig.ep.fetchAtomicmsg(m, result, null, 1, i < n - 1 ? FiFlags.MORE : 0);
      if (rc != 0) {
        return "call " + i + " returned " + FiErrno.errorString(rc);
      }
    }
    Set<Object> pending = new HashSet<>(List.of(contexts));
    CqEntry[] entries = {new CqEntry()};
    for (int i = 0; i < n; i++) {
      int got = rig.cq.sread(entries, 1, Rig.WAIT_MILLIS);
      if (got != 1) {
        return "completion " + i + ": " + FiErrno.errorString(got);
      }
      if (!pending.remove(entries[0].opContext)) {
        return "completion with unexpected context " + entries[0].opContext;
      }
    }
    String problem =
        ImageComparison.difference("fetched", dt, before, results.toArray(ValueLayout.JAVA_BYTE));
    return problem != null ? problem : expectTarget(dt, before, n, 1);
  }

  /** Three base calls and three fetching calls: the write and read counters move by 3 each. */
  private String counters(FiDatatype dt) {
    byte[] before = startingElements(dt, 1);
    long reads = rig.reads.read();
    long writes = rig.writes.read();
    MemorySegment buf = rig.operand(one(dt));
    MemorySegment result = rig.result(dt.size(), (byte) 0xEE);
    for (int i = 0; i < 3; i++) {
      int rc = rig.ep.atomic(buf, 1, null, rig.peer, BASE, rig.key, dt, FiOp.SUM, "w");
      int rc2 =
          rig.ep.fetchAtomic(
              buf, 1, null, result, null, rig.peer, BASE + dt.size(), rig.key, dt, FiOp.SUM, "r");
      if (rc != 0 || rc2 != 0) {
        return "a call returned " + FiErrno.errorString(rc != 0 ? rc : rc2);
      }
    }
    String problem = Rig.awaitCount(rig.writes, writes + 3, "write");
    if (problem == null) {
      problem = Rig.awaitCount(rig.reads, reads + 3, "read");
    }
    CqEntry[] entries = {new CqEntry()};
    for (int i = 0; i < 6; i++) {
      int got = rig.cq.sread(entries, 1, Rig.WAIT_MILLIS);
      if (got != 1 && problem == null) {
        problem = "completion " + i + ": " + FiErrno.errorString(got);
      }
    }
    return problem != null ? problem : expectTarget(dt, before, 1, 3);
  }

  /**
   * Operations to a target process that is killed end as completions or as error entries with
   * FI_ECONNRESET and their context; once the failure is known, calls are refused with it.
   */
  private CheckResult errorEntries() {
    FiDatatype dt = FiDatatype.UINT64;
    Mechanism m = mechanism(AtomicFamily.FETCH, FiOp.SUM, dt);
    String transport = rig.config.transport();
    if (m == null) {
      return new CheckResult(
          AtomicFamily.FETCH,
          FiOp.SUM,
          dt,
          "error_entry",
          null,
          Status.UNSUPPORTED,
          "fetch FI_SUM FI_UINT64 is not supported");
    }
    if (transport == null || transport.equals("shm") || transport.contains("sm")) {
      return new CheckResult(
          AtomicFamily.FETCH,
          FiOp.SUM,
          dt,
          "error_entry",
          m,
          Status.UNSUPPORTED,
          "shared-memory transports do not report a dead peer (UCX 1.13), so no error entry"
              + " can be provoked");
    }
    String problem;
    try (RemoteTarget dying =
            new RemoteTarget(rig.config.provider(), transport, 64, false, false, List.of());
        Initiator ini = new Initiator(rig.config.provider(), Rig.initiatorAttr(rig.config))) {
      problem = killWithOperationsInFlight(dying, ini);
    } catch (RuntimeException e) {
      problem = "threw " + e;
    }
    return new CheckResult(
        AtomicFamily.FETCH,
        FiOp.SUM,
        dt,
        "error_entry",
        m,
        problem == null ? Status.PASS : Status.FAIL,
        problem == null ? "" : problem);
  }

  /** Operations posted back to back to the killed peer before its completions are read. */
  private static final int IN_FLIGHT = 8;

  /**
   * Kills the target after one good operation, then posts rounds of {@link #IN_FLIGHT} fetching
   * SUMs without waiting in between, each with its own context, until the provider refuses calls
   * with -FI_ECONNRESET. Every posted operation must end exactly once: as a completion, or as an
   * error entry with FI_ECONNRESET, each carrying its own context; at least one must be an error
   * entry.
   */
  private String killWithOperationsInFlight(RemoteTarget dying, Initiator ini) {
    long peer = ini.av.insert(dying.address());
    MemorySegment one = rig.operand(ElementValues.littleEndian(1, 8));
    MemorySegment results = rig.result(8 * IN_FLIGHT, (byte) 0);
    int rc =
        ini.ep.fetchAtomic(
            one,
            1,
            null,
            results,
            null,
            peer,
            0,
            dying.key(),
            FiDatatype.UINT64,
            FiOp.SUM,
            "alive");
    if (rc != 0) {
      return "the first call returned " + FiErrno.errorString(rc);
    }
    String problem = rig.awaitCompletion(ini.cq, "alive", flagsOf(false));
    if (problem != null) {
      return problem;
    }
    dying.kill();
    CqEntry[] entries = {new CqEntry()};
    CqErrEntry error = new CqErrEntry();
    int errorEntries = 0;
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (int round = 0; System.nanoTime() < deadline; round++) {
      List<Object> pending = new ArrayList<>();
      rc = 0;
      for (int i = 0; i < IN_FLIGHT && rc == 0; i++) {
        Object context = "dying " + round + "." + i; // a new object: completions match by identity
        rc =
            ini.ep.fetchAtomic(
                one,
                1,
                null,
                results.asSlice(8L * i, 8),
                null,
                peer,
                0,
                dying.key(),
                FiDatatype.UINT64,
                FiOp.SUM,
                context);
        if (rc == 0) {
          pending.add(context);
        }
      }
      if (rc != 0 && rc != -FiErrno.ECONNRESET) {
        return "a call to the dying peer returned " + FiErrno.errorString(rc);
      }
      while (!pending.isEmpty()) {
        int n = ini.cq.sread(entries, 1, Rig.WAIT_MILLIS);
        Object context;
        if (n == -FiErrno.EAVAIL) {
          ini.cq.readErr(error);
          if (error.err != FiErrno.ECONNRESET) {
            return "error entry " + error + ", expected FI_ECONNRESET";
          }
          context = error.opContext;
          errorEntries++;
        } else if (n == 1) {
          context = entries[0].opContext;
          if (entries[0].flags != flagsOf(false)) {
            return "completion flags 0x" + Long.toHexString(entries[0].flags) + " for " + context;
          }
        } else {
          return pending.size()
              + " operations to the killed peer ended neither in a completion nor in an error"
              + " entry: "
              + FiErrno.errorString(n);
        }
        if (!removeSame(pending, context)) {
          return "an entry with context " + context + ", which is no pending operation's";
        }
      }
      if (rc == -FiErrno.ECONNRESET) {
        if (errorEntries == 0) {
          return "calls were refused with -FI_ECONNRESET, but no operation in flight became an"
              + " error entry";
        }
        return rig.expectNoCompletion(ini.cq);
      }
    }
    return "the failure of the killed peer was not reported within 30 s";
  }

  private static boolean removeSame(List<Object> pending, Object context) {
    for (int i = 0; i < pending.size(); i++) {
      if (pending.get(i) == context) {
        pending.remove(i);
        return true;
      }
    }
    return false;
  }

  /** Sets {@code n} elements of distinct small values at the base offset; returns them. */
  private byte[] startingElements(FiDatatype dt, int n) {
    byte[] image = new byte[n * dt.size()];
    MemorySegment s = MemorySegment.ofArray(image);
    MemorySegment o = MemorySegment.ofArray(one(dt));
    for (int i = 0; i < n; i++) {
      for (int k = 0; k <= i; k++) {
        ElementSemantics.apply(FiOp.SUM, dt, s, (long) i * dt.size(), o, 0, null, 0, null, 0);
      }
    }
    rig.target.set(BASE, image);
    return image;
  }

  /** Null when the target holds {@code before} plus {@code times} ones in each element. */
  private String expectTarget(FiDatatype dt, byte[] before, int n, int times) {
    return ImageComparison.difference(
        "target", dt, summed(dt, before, n, times), rig.target.get(BASE, n * dt.size()));
  }

  private static byte[] summed(FiDatatype dt, byte[] before, int n, int times) {
    byte[] expected = before.clone();
    MemorySegment s = MemorySegment.ofArray(expected);
    MemorySegment o = MemorySegment.ofArray(one(dt));
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < times; k++) {
        ElementSemantics.apply(FiOp.SUM, dt, s, (long) i * dt.size(), o, 0, null, 0, null, 0);
      }
    }
    return expected;
  }

  private AtomicMsg msg(MemorySegment buf, int n, FiDatatype dt, FiOp op, Object context) {
    return new AtomicMsg(
        new Ioc[] {new Ioc(buf, n)},
        null,
        rig.peer,
        new RmaIoc[] {new RmaIoc(BASE, n, rig.key)},
        dt,
        op,
        context,
        0);
  }

  /** The value 1 of {@code dt} (1 + 0i for complex types). */
  static byte[] one(FiDatatype dt) {
    byte[] b = new byte[dt.size()];
    MemorySegment s = MemorySegment.ofArray(b);
    switch (dt) {
      case FLOAT, FLOAT_COMPLEX -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, 1f);
      case DOUBLE, DOUBLE_COMPLEX -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, 1d);
      case LONG_DOUBLE, LONG_DOUBLE_COMPLEX -> LongDouble.ONE.write(s, 0);
      default -> b[0] = 1;
    }
    return b;
  }

  private static byte[] repeat(byte[] element, int n) {
    byte[] out = new byte[element.length * n];
    for (int i = 0; i < n; i++) {
      System.arraycopy(element, 0, out, i * element.length, element.length);
    }
    return out;
  }
}
