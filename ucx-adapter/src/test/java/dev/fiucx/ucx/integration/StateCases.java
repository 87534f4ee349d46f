package dev.fiucx.ucx.integration;

import static dev.fiucx.ucx.integration.BadInputRig.of;
import static dev.fiucx.ucx.integration.BadInputRig.throwing;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicMsg;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.RmaIoc;
import dev.fiucx.ucx.integration.BadInputRig.Case;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Objects in the wrong state and set-up calls with bad arguments: endpoints not enabled or closed,
 * binds of nothing, of another domain's objects, of closed objects or twice, a closed domain, bad
 * sizes, access and options (each a {@code FiException} with its errno, never a {@code
 * NullPointerException} or the like), and completion-queue reads with bad arguments and every kind
 * of timeout.
 */
final class StateCases {
  private StateCases() {}

  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  static List<Case> cases(BadInputRig r) {
    List<Case> c = new ArrayList<>();
    Domain domain = r.ini.domain;
    Domain other = r.later(Fabric.openDomain("ucx", attr(r, Map.of())));
    CompletionQueue otherCq = r.later(other.openCompletionQueue(8));
    Counter otherCounter = r.later(other.openCounter());

    // an endpoint that is not enabled yet
    Endpoint idle = r.later(domain.openEndpoint());
    c.add(
        of(
            "fi_atomic on an endpoint not enabled",
            FiErrno.EOPBADSTATE,
            () -> idle.atomic(r.one, 1, null, r.peer, 0, r.key, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(throwing("fi_enable without an address vector", FiErrno.ENOAV, idle::enable));
    c.add(
        throwing(
            "fi_ep_bind of a null queue",
            FiErrno.EINVAL,
            () -> idle.bind((CompletionQueue) null, FiFlags.TRANSMIT)));
    c.add(
        throwing(
            "fi_ep_bind of a null counter",
            FiErrno.EINVAL,
            () -> idle.bind((Counter) null, FiFlags.WRITE)));
    c.add(
        throwing(
            "fi_ep_bind of a null address vector",
            FiErrno.EINVAL,
            () -> idle.bind((AddressVector) null)));
    c.add(
        throwing(
            "fi_ep_bind of a queue with FI_READ",
            FiErrno.EBADFLAGS,
            () -> idle.bind(r.later(domain.openCompletionQueue(8)), FiFlags.READ)));
    c.add(
        throwing(
            "fi_ep_bind of a counter with no flags",
            FiErrno.EBADFLAGS,
            () -> idle.bind(r.later(domain.openCounter()), 0)));
    c.add(
        throwing(
            "fi_ep_bind of another domain's queue",
            FiErrno.EINVAL,
            () -> idle.bind(otherCq, FiFlags.TRANSMIT)));
    c.add(
        throwing(
            "fi_ep_bind of another domain's counter",
            FiErrno.EINVAL,
            () -> idle.bind(otherCounter, FiFlags.WRITE)));
    c.add(
        throwing(
            "fi_ep_bind of a closed queue",
            FiErrno.EOPBADSTATE,
            () -> {
              CompletionQueue q = domain.openCompletionQueue(8);
              q.close();
              idle.bind(q, FiFlags.TRANSMIT);
            }));
    c.add(
        throwing(
            "fi_ep_bind of a closed counter",
            FiErrno.EOPBADSTATE,
            () -> {
              Counter counter = domain.openCounter();
              counter.close();
              idle.bind(counter, FiFlags.READ);
            }));
    c.add(
        throwing(
            "fi_ep_bind of a second queue",
            FiErrno.EINVAL,
            () -> {
              Endpoint ep = r.later(domain.openEndpoint());
              ep.bind(r.later(domain.openCompletionQueue(8)), FiFlags.TRANSMIT);
              ep.bind(r.later(domain.openCompletionQueue(8)), FiFlags.TRANSMIT);
            }));
    c.add(
        throwing(
            "fi_ep_bind of a second write counter",
            FiErrno.EINVAL,
            () -> {
              Endpoint ep = r.later(domain.openEndpoint());
              ep.bind(r.later(domain.openCounter()), FiFlags.WRITE | FiFlags.READ);
              ep.bind(r.later(domain.openCounter()), FiFlags.WRITE);
            }));
    c.add(
        throwing(
            "fi_ep_bind of a second address vector",
            FiErrno.EINVAL,
            () -> {
              Endpoint ep = r.later(domain.openEndpoint());
              ep.bind(r.ini.av);
              ep.bind(r.ini.av);
            }));

    // the enabled endpoint of every case
    c.add(throwing("fi_enable twice", FiErrno.EOPBADSTATE, r.ini.ep::enable));
    c.add(
        throwing(
            "fi_ep_bind after fi_enable",
            FiErrno.EOPBADSTATE,
            () -> r.ini.ep.bind(r.later(domain.openCompletionQueue(8)), FiFlags.TRANSMIT)));
    c.add(
        throwing(
            "fi_ep_bind of the AV after fi_enable",
            FiErrno.EOPBADSTATE,
            () -> r.ini.ep.bind(r.ini.av)));

    // a closed endpoint
    Endpoint closed = domain.openEndpoint();
    closed.bind(r.ini.av);
    closed.bind(r.later(domain.openCompletionQueue(8)), FiFlags.TRANSMIT);
    closed.enable();
    closed.close();
    long p = r.peer;
    long k = r.key;
    c.add(
        of(
            "fi_atomic on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () -> closed.atomic(r.one, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_atomic count 4 on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () -> closed.atomic(r.ones, 4, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_fetch_atomic on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () ->
                closed.fetchAtomic(
                    r.one, 1, null, r.result, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_compare_atomic on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () ->
                closed.compareAtomic(
                    r.one,
                    1,
                    null,
                    r.one,
                    null,
                    r.result,
                    null,
                    p,
                    0,
                    k,
                    FiDatatype.UINT64,
                    FiOp.CSWAP,
                    "x")));
    c.add(
        of(
            "fi_inject_atomic on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () -> closed.injectAtomic(r.one, 1, p, 0, k, FiDatatype.UINT64, FiOp.SUM)));
    c.add(
        of(
            "fi_atomicmsg on a closed endpoint",
            FiErrno.EOPBADSTATE,
            () ->
                closed.atomicmsg(
                    new AtomicMsg(
                        new Ioc[] {new Ioc(r.one, 1)},
                        null,
                        p,
                        new RmaIoc[] {new RmaIoc(0, 1, k)},
                        FiDatatype.UINT64,
                        FiOp.SUM,
                        "x",
                        0),
                    0)));
    c.add(
        throwing(
            "fi_ep_bind on a closed endpoint", FiErrno.EOPBADSTATE, () -> closed.bind(r.ini.av)));
    c.add(throwing("fi_enable on a closed endpoint", FiErrno.EOPBADSTATE, closed::enable));
    c.add(
        throwing(
            "atomicPath on a closed endpoint", FiErrno.EOPBADSTATE, () -> closed.atomicPath(p, k)));
    c.add(throwing("closing an endpoint twice", 0, closed::close));

    // set-up calls of the domain with bad arguments
    for (int size : new int[] {-1, Integer.MIN_VALUE, (1 << 20) + 1, Integer.MAX_VALUE}) {
      c.add(
          throwing(
              "fi_cq_open size " + size, FiErrno.EINVAL, () -> domain.openCompletionQueue(size)));
    }
    c.add(throwing("fi_mr_reg of null", FiErrno.EINVAL, () -> domain.registerMemory(null, RW)));
    c.add(
        throwing(
            "fi_mr_reg of heap memory", FiErrno.EINVAL, () -> domain.registerMemory(r.heap, RW)));
    c.add(
        throwing(
            "fi_mr_reg of freed memory", FiErrno.EINVAL, () -> domain.registerMemory(r.freed, RW)));
    c.add(
        throwing(
            "fi_mr_reg of a read-only view for remote writes",
            FiErrno.EACCES,
            () -> domain.registerMemory(r.readOnlyView, RW)));
    c.add(
        throwing(
            "fi_mr_reg with no access",
            FiErrno.EINVAL,
            () -> domain.registerMemory(r.arena.allocate(64, 8), 0)));
    c.add(
        throwing(
            "fi_mr_reg with local access flags",
            FiErrno.EINVAL,
            () -> domain.registerMemory(r.arena.allocate(64, 8), FiFlags.READ | RW)));
    c.add(
        throwing(
            "allocateMemory with no access", FiErrno.EINVAL, () -> domain.allocateMemory(64, 0)));
    c.add(
        throwing(
            "allocateMemory with access bit 40",
            FiErrno.EINVAL,
            () -> domain.allocateMemory(64, 1L << 40)));
    for (long size : new long[] {0, -1, Long.MIN_VALUE}) {
      c.add(
          throwing(
              "allocateMemory of " + size + " bytes",
              FiErrno.EINVAL,
              () -> domain.allocateMemory(size, RW)));
    }
    c.add(
        throwing(
            "fi_query_atomic of a null datatype",
            FiErrno.EINVAL,
            () -> domain.queryAtomic(null, FiOp.SUM, 0)));
    c.add(
        throwing(
            "fi_query_atomic of a null op",
            FiErrno.EINVAL,
            () -> domain.queryAtomic(FiDatatype.UINT64, null, 0)));
    c.add(
        throwing(
            "fi_query_atomic FETCH with COMPARE",
            FiErrno.EBADFLAGS,
            () ->
                domain.queryAtomic(
                    FiDatatype.UINT64, FiOp.SUM, FiFlags.FETCH_ATOMIC | FiFlags.COMPARE_ATOMIC)));
    c.add(
        throwing(
            "a domain with threading=bogus",
            FiErrno.EINVAL,
            () -> r.later(Fabric.openDomain("ucx", attr(r, Map.of("threading", "bogus"))))));
    c.add(
        throwing(
            "a domain with lock_lease_ms=-1",
            FiErrno.EINVAL,
            () -> r.later(Fabric.openDomain("ucx", attr(r, Map.of("lock_lease_ms", "-1"))))));
    c.add(
        throwing(
            "a domain of no provider",
            FiErrno.ENODATA,
            () -> Fabric.openDomain("no-such-provider", DomainAttr.defaults())));
    c.add(
        throwing(
            "a domain with null attributes", FiErrno.EINVAL, () -> Fabric.openDomain("ucx", null)));

    // a closed domain refuses everything
    Domain gone = Fabric.openDomain("ucx", attr(r, Map.of()));
    CompletionQueue goneCq = gone.openCompletionQueue(8);
    Counter goneCounter = gone.openCounter();
    AddressVector goneAv = gone.openAddressVector();
    Endpoint goneEp = gone.openEndpoint();
    goneEp.bind(goneAv);
    goneEp.bind(goneCq, FiFlags.TRANSMIT);
    goneEp.enable();
    long gonePeer = goneAv.insert(r.target.address());
    gone.close();
    c.add(
        of(
            "fi_atomic on an endpoint of a closed domain",
            FiErrno.EOPBADSTATE,
            () -> goneEp.atomic(r.one, 1, null, gonePeer, 0, k, FiDatatype.UINT64, FiOp.SUM, "x")));
    c.add(
        of(
            "fi_cq_read of a closed domain",
            FiErrno.EOPBADSTATE,
            () -> goneCq.read(new CqEntry[] {new CqEntry()}, 1)));
    c.add(
        of(
            "fi_cq_sread of a closed domain",
            FiErrno.EOPBADSTATE,
            () -> goneCq.sread(new CqEntry[] {new CqEntry()}, 1, Long.MAX_VALUE)));
    c.add(
        of(
            "fi_cntr_wait of a closed domain",
            FiErrno.EOPBADSTATE,
            () -> goneCounter.waitFor(1, Long.MAX_VALUE)));
    c.add(throwing("fi_endpoint on a closed domain", FiErrno.EOPBADSTATE, gone::openEndpoint));
    c.add(
        throwing(
            "fi_cq_open on a closed domain",
            FiErrno.EOPBADSTATE,
            () -> gone.openCompletionQueue(8)));
    c.add(throwing("fi_cntr_open on a closed domain", FiErrno.EOPBADSTATE, gone::openCounter));
    c.add(throwing("fi_av_open on a closed domain", FiErrno.EOPBADSTATE, gone::openAddressVector));
    c.add(
        throwing(
            "allocateMemory on a closed domain",
            FiErrno.EOPBADSTATE,
            () -> gone.allocateMemory(64, RW)));
    c.add(
        throwing(
            "fi_mr_reg on a closed domain",
            FiErrno.EOPBADSTATE,
            () -> gone.registerMemory(r.arena.allocate(64, 8), RW)));
    c.add(
        throwing(
            "fi_query_atomic on a closed domain",
            FiErrno.EOPBADSTATE,
            () -> gone.queryAtomic(FiDatatype.UINT64, FiOp.SUM, 0)));
    c.add(throwing("describe on a closed domain", FiErrno.EOPBADSTATE, gone::describe));
    c.add(throwing("closing a domain twice", 0, gone::close));

    // completion-queue reads: bad arguments and timeouts of every size
    CqEntry[] one = {new CqEntry()};
    for (long timeout : new long[] {Long.MAX_VALUE, -1, Long.MAX_VALUE / 1_000_000 + 1, 10_000}) {
      c.add(
          of(
              "fi_cq_sread with timeout " + timeout + " waits for a completion",
              0,
              () -> readBack(r, timeout, one)));
    }
    c.add(
        of(
            "FI_FENCE after refused buffers waits for nothing (no slot leaked)",
            0,
            () -> {
              int refused =
                  r.ini.ep.atomic(
                      r.foreign, 1, null, p, 0, k, FiDatatype.UINT64, FiOp.SUM, "refused");
              if (refused != -FiErrno.EINVAL) {
                return refused;
              }
              long start = System.nanoTime();
              int rc = fencedRead(r, one);
              return System.nanoTime() - start < 5_000_000_000L ? rc : -FiErrno.ETIMEDOUT;
            }));
    c.add(
        of(
            "fi_cq_sread with timeout 0 and nothing to read",
            FiErrno.EAGAIN,
            () -> r.ini.cq.sread(one, 1, 0)));
    c.add(of("fi_cq_read into null", FiErrno.EINVAL, () -> r.ini.cq.read(null, 1)));
    c.add(of("fi_cq_read of -1 entries", FiErrno.EINVAL, () -> r.ini.cq.read(one, -1)));
    c.add(
        of(
            "fi_cq_read into an array of null",
            FiErrno.EINVAL,
            () -> r.ini.cq.read(new CqEntry[1], 1)));
    c.add(
        of(
            "fi_cq_sread into null with no limit",
            FiErrno.EINVAL,
            () -> r.ini.cq.sread(null, 1, Long.MAX_VALUE)));
    c.add(of("fi_cq_readerr into null", FiErrno.EINVAL, () -> r.ini.cq.readErr(null)));
    c.add(
        of(
            "fi_cq_readerr with no error",
            FiErrno.EAGAIN,
            () -> r.ini.cq.readErr(new CqErrEntry())));
    return c;
  }

  /** A fenced fetch ATOMIC_READ through fi_fetch_atomicmsg, read back: 0 when it completed. */
  private static int fencedRead(BadInputRig r, CqEntry[] entries) {
    MemorySegment into = r.arena.allocate(8, 8);
    String context = "fenced read";
    int rc =
        r.ini.ep.fetchAtomicmsg(
            new AtomicMsg(
                new Ioc[] {new Ioc(null, 1)}, // ATOMIC_READ's operand: only its count matters
                null,
                r.peer,
                new RmaIoc[] {new RmaIoc(0, 1, r.key)},
                FiDatatype.UINT64,
                FiOp.ATOMIC_READ,
                context,
                0),
            new Ioc[] {new Ioc(into, 1)},
            null,
            1,
            FiFlags.FENCE | FiFlags.COMPLETION);
    if (rc < 0) {
      return rc;
    }
    int n = r.ini.cq.sread(entries, 1, 10_000);
    return n == 1 && context.equals(entries[0].opContext) ? 0 : n < 0 ? n : -FiErrno.EOTHER;
  }

  private static DomainAttr attr(BadInputRig r, Map<String, String> options) {
    return new DomainAttr(r.transport, DomainAttr.Progress.AUTO, false, options);
  }

  /**
   * Posts a fetch ATOMIC_READ (which changes nothing) and reads its completion with {@code
   * timeout}: 0 when it came with its context, else what sread said.
   */
  private static int readBack(BadInputRig r, long timeout, CqEntry[] entries) {
    MemorySegment into = r.arena.allocate(8, 8);
    String context = "read back " + timeout;
    int rc =
        r.ini.ep.fetchAtomic(
            null,
            1,
            null,
            into,
            null,
            r.peer,
            0,
            r.key,
            FiDatatype.UINT64,
            FiOp.ATOMIC_READ,
            context);
    if (rc < 0) {
      return rc;
    }
    int n = r.ini.cq.sread(entries, 1, timeout);
    if (n != 1) {
      return n < 0 ? n : -FiErrno.EOTHER;
    }
    return context.equals(entries[0].opContext) ? 0 : -FiErrno.EOTHER;
  }
}
