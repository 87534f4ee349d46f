package dev.fiucx.engine;

import static dev.fiucx.AtomicFamily.BASE;
import static dev.fiucx.AtomicFamily.COMPARE;

import dev.fiucx.AtomicFamily;
import dev.fiucx.AtomicMsg;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Ioc;
import dev.fiucx.completion.OperationCounts;
import dev.fiucx.dispatch.Dispatcher;
import dev.fiucx.validation.CallChecks;
import dev.fiucx.validation.CallGuard;
import dev.fiucx.validation.LocalChecks.Need;
import java.lang.foreign.MemorySegment;

/**
 * What an endpoint's atomic calls do, each in one of three forms: plain (one buffer per side:
 * {@code fi_atomic}, {@code fi_fetch_atomic}, {@code fi_compare_atomic}, {@code fi_inject_atomic}
 * and the in-call element), vector (iovs per side) or message ({@code fi_msg_atomic}). Every call
 * runs through {@link #guarded}, inside the endpoint's {@link CallGuard}. A one-element plain call
 * takes its {@link OneElementRoute} when the route holds; otherwise it is checked on its buffers
 * and range as given ({@link CallChecks#checkOne}) and started by the route, which it then makes.
 * Every other call fills the dispatcher's element walks, is checked on them ({@link
 * CallChecks#check}) and posted by the {@link CallPoster}.
 *
 * <p>{@code FI_FENCE} (a message call's flag) never blocks: a fenced call that passed its checks
 * while an operation of the endpoint is in flight is deferred ({@link DeferredCalls}) and returns
 * 0. While a call is deferred, every call runs behind it ({@link #behind}): under the deferred
 * calls' lock, without the route, checked as always, then deferred too, so the endpoint's calls
 * start in the order they were made. A call made while none is deferred pays one volatile load for
 * it.
 */
final class EndpointCalls {
  private final CallGuard guard;
  private final OperationCounts counts;
  private final Dispatcher dispatcher;
  private final CallChecks checks;
  private final EndpointLookups lookups;
  private final DomainErrors errors;
  private final DeferredCalls deferred;

  /**
   * Set while a call runs behind deferred ones ({@link #behind}, under their lock): once checked,
   * it is deferred too.
   */
  private boolean behind;

  /**
   * Set while {@link #behind} holds the deferred calls' lock, which is not reentrant: a fenced call
   * it runs defers under that hold rather than taking the lock again (progress may have started
   * every deferred call between the look at the backlog and the lock).
   */
  private boolean holdingLock;

  /** Set by {@link #enable}: non-null once enabled. */
  private CallPoster poster;

  /** Set by {@link #enable}, dropped by {@link #close}: null while no call may take it. */
  private volatile OneElementRoute route;

  private volatile boolean closed;

  /**
   * @param guard who may be inside the calls
   * @param checks the endpoint's checks, over {@code dispatcher}'s walks
   * @param errors where an exception inside a call goes
   * @param deferred the endpoint's calls deferred by {@code FI_FENCE}
   */
  EndpointCalls(
      CallGuard guard,
      OperationCounts counts,
      Dispatcher dispatcher,
      CallChecks checks,
      EndpointLookups lookups,
      DomainErrors errors,
      DeferredCalls deferred) {
    this.guard = guard;
    this.counts = counts;
    this.dispatcher = dispatcher;
    this.checks = checks;
    this.lookups = lookups;
    this.errors = errors;
    this.deferred = deferred;
  }

  /** The endpoint is enabled: calls are posted by {@code poster} and may take {@code route}. */
  void enable(CallPoster poster, OneElementRoute route) {
    this.poster = poster;
    this.route = route;
  }

  /** The endpoint is closed: every later call is refused with {@code -FI_EOPBADSTATE}. */
  void close() {
    closed = true;
    route = null;
  }

  /** Whether {@link #close} was called. */
  boolean closed() {
    return closed;
  }

  /**
   * What a call does inside the guard, by its form: plain (one buffer per side), vector (iovs per
   * side) or message ({@code fi_msg_atomic}). The three are static method references, made once per
   * class (nothing is allocated per call); a static final is a constant to the JIT, so where {@link
   * #guarded} is compiled into a call, its form's code is called directly.
   *
   * @param <L> the operands' type
   * @param <S> the compare values' and results' type
   */
  @FunctionalInterface
  private interface CallForm<L, S> {
    int run(
        EndpointCalls calls,
        AtomicFamily family,
        FiOp op,
        FiDatatype datatype,
        L operands,
        long count,
        S compares,
        long compareCount,
        S results,
        long resultCount,
        long destAddr,
        long addr,
        long key,
        Object context,
        long flags);
  }

  private static final CallForm<MemorySegment, MemorySegment> PLAIN = EndpointCalls::runPlain;

  /** {@link #PLAIN} without the route: behind deferred calls. */
  private static final CallForm<MemorySegment, MemorySegment> PLAIN_CHECKED =
      EndpointCalls::runPlainChecked;

  private static final CallForm<Ioc[], Ioc[]> VECTOR = EndpointCalls::runVector;
  private static final CallForm<AtomicMsg, Ioc[]> MESSAGE = EndpointCalls::runMessage;

  /**
   * Runs one call of {@code form} inside the guard ({@code -FI_EBUSY} when another thread is inside
   * a refusing one): counts a refusal, logs it with the check that failed when DEBUG is on ({@link
   * CallFailures#refused}), and turns an exception into {@code -FI_EOTHER}, counted and handed to
   * the domain's error handler ({@link CallFailures#thrown}): an engine or transport failure, or a
   * buffer closed or confined to another thread by a racing thread after its checks. While a call
   * is deferred, the call runs {@code behindForm} {@link #behind} it.
   */
  private <L, S> int guarded(
      CallForm<L, S> form,
      CallForm<L, S> behindForm,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      L operands,
      long count,
      S compares,
      long compareCount,
      S results,
      long resultCount,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    int rc = guard.enter();
    if (rc < 0) {
      return rc;
    }
    try {
      rc =
          deferred.backlog()
              ? behind(
                  behindForm,
                  family,
                  op,
                  datatype,
                  operands,
                  count,
                  compares,
                  compareCount,
                  results,
                  resultCount,
                  destAddr,
                  addr,
                  key,
                  context,
                  flags)
              : form.run(
                  this,
                  family,
                  op,
                  datatype,
                  operands,
                  count,
                  compares,
                  compareCount,
                  results,
                  resultCount,
                  destAddr,
                  addr,
                  key,
                  context,
                  flags);
      if (rc < 0) {
        CallFailures.refused(counts.refused(rc), family, op, datatype, checks.takeFailedCheck());
      }
      return rc;
    } catch (RuntimeException e) {
      dispatcher.forget();
      checks.takeFailedCheck();
      return counts.refused(CallFailures.thrown(errors, e));
    } finally {
      guard.exit();
    }
  }

  /**
   * A call made while another is deferred: under the deferred calls' lock (progress starts none
   * meanwhile), checked in full as any call, then deferred behind them. When progress started the
   * last of them while this call waited for the lock, it runs as if none had been deferred.
   */
  private <L, S> int behind(
      CallForm<L, S> form,
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      L operands,
      long count,
      S compares,
      long compareCount,
      S results,
      long resultCount,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    deferred.lock();
    try {
      holdingLock = true;
      behind = deferred.backlog();
      return form.run(
          this,
          family,
          op,
          datatype,
          operands,
          count,
          compares,
          compareCount,
          results,
          resultCount,
          destAddr,
          addr,
          key,
          context,
          flags);
    } finally {
      behind = false;
      holdingLock = false;
      deferred.unlock();
    }
  }

  /**
   * A plain call: {@code count} elements in each buffer.
   *
   * @param flags 0 (the plain calls: a completion unless the queue is selective), {@code
   *     FI_INJECT}, or {@link CallPoster#IN_CALL}
   */
  int plain(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment buf,
      long count,
      MemorySegment compare,
      MemorySegment result,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    return guarded(
        PLAIN,
        PLAIN_CHECKED,
        family,
        op,
        datatype,
        buf,
        count,
        compare,
        count,
        result,
        count,
        destAddr,
        addr,
        key,
        context,
        flags);
  }

  /** A vector call: its flags are 0, as the plain calls'. */
  int vector(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      Ioc[] iov,
      int count,
      Ioc[] comparev,
      int compareCount,
      Ioc[] resultv,
      int resultCount,
      long destAddr,
      long addr,
      long key,
      Object context) {
    return guarded(
        VECTOR,
        VECTOR,
        family,
        op,
        datatype,
        iov,
        count,
        comparev,
        compareCount,
        resultv,
        resultCount,
        destAddr,
        addr,
        key,
        context,
        0);
  }

  /** A message call: op and datatype (for the refusal's log line) from the message, if any. */
  int message(
      AtomicFamily family,
      AtomicMsg msg,
      Ioc[] comparev,
      int compareCount,
      Ioc[] resultv,
      int resultCount,
      long flags) {
    return guarded(
        MESSAGE,
        MESSAGE,
        family,
        msg == null ? null : msg.op(),
        msg == null ? null : msg.datatype(),
        msg,
        0,
        comparev,
        compareCount,
        resultv,
        resultCount,
        0,
        0,
        0,
        null,
        flags);
  }

  // --- the forms, inside the guard ---

  /**
   * A plain call, inject or in-call element: {@code count} elements in each buffer. A one-element
   * call takes the route when it holds, else is checked and started as one element.
   *
   * @param flags 0 (a completion unless the queue is selective), {@code FI_INJECT}, or {@link
   *     CallPoster#IN_CALL}
   */
  private int runPlain(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment buf,
      long count,
      MemorySegment compare,
      long compareCount,
      MemorySegment result,
      long resultCount,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    if (count == 1) {
      OneElementRoute r = route;
      if (r != null && r.leadsTo(family, op, datatype, destAddr, key)) {
        int rc = r.post(buf, compare, result, addr, context, flags);
        if (rc != OneElementRoute.OFF_ROUTE) {
          return rc;
        }
      }
    }
    return runPlainChecked(
        family,
        op,
        datatype,
        buf,
        count,
        compare,
        compareCount,
        result,
        resultCount,
        destAddr,
        addr,
        key,
        context,
        flags);
  }

  /**
   * {@link #runPlain} past the route: a one-element call checked on its buffers and started as one
   * element (or, {@link #behind} deferred calls, deferred), any other filled into the walks,
   * checked and posted.
   */
  private int runPlainChecked(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      MemorySegment buf,
      long count,
      MemorySegment compare,
      long compareCount,
      MemorySegment result,
      long resultCount,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    // the plain calls' flags are the engine's own: IN_CALL cannot be a user's flag here
    boolean inCall = flags == CallPoster.IN_CALL;
    long checked = inCall ? 0 : flags;
    if (count == 1) {
      // checked on the buffers as given, not through the walks (storing a buffer in an array
      // costs a type check and the collector's write barrier on every call)
      int rc =
          checkOne(
              family, op, datatype, checked, destAddr, inCall, buf, compare, result, addr, key);
      if (rc < 0) {
        return rc;
      }
      if (behind) {
        // an in-call element deferred is not done in the call: its completion comes through the
        // queue, as when it goes pending
        return deferred.deferOne(
            checks, buf, compare, result, context, inCall || poster.wantsCompletion(flags));
      }
      // passed: the endpoint is enabled and open, so its route is there
      return route.postChecked(
          checks, lookups.peersOfLastPeer(), destAddr, key, buf, compare, result, context, flags);
    }
    dispatcher.operands.set(buf, count);
    if (family == COMPARE) {
      dispatcher.compares.set(compare, compareCount);
    }
    if (family != BASE) {
      dispatcher.results.set(result, resultCount);
    }
    dispatcher.targets.set(addr, count, key);
    int rc = check(family, op, datatype, destAddr, checked);
    return rc < 0 ? rc : post(context, flags);
  }

  /**
   * A vector call: operands, compare values (when given) and results as iovs; the remote side is
   * one range of as many elements as the operands' iovs hold. The iov arrays' shape is refused with
   * {@code -FI_EINVAL} as they are read, before the checks.
   */
  private int runVector(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      Ioc[] iov,
      long count,
      Ioc[] comparev,
      long compareCount,
      Ioc[] resultv,
      long resultCount,
      long destAddr,
      long addr,
      long key,
      Object context,
      long flags) {
    int rc = dispatcher.operands.set(iov, (int) count);
    if (rc == 0 && comparev != null) {
      rc = dispatcher.compares.set(comparev, (int) compareCount);
    }
    if (rc == 0 && family != BASE) {
      rc = dispatcher.results.set(resultv, (int) resultCount);
    }
    if (rc < 0) {
      dispatcher.forget();
      return rc;
    }
    dispatcher.targets.set(addr, dispatcher.operands.check(1, Need.COUNT_ONLY), key);
    rc = check(family, op, datatype, destAddr, flags);
    return rc < 0 ? rc : post(context, flags);
  }

  /**
   * A message call: operands and remote ranges from the message, compare values and results as
   * iovs. A null message and the arrays' shape are refused with {@code -FI_EINVAL} before the
   * checks.
   */
  private int runMessage(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      AtomicMsg msg,
      long unused,
      Ioc[] comparev,
      long compareCount,
      Ioc[] resultv,
      long resultCount,
      long unusedDestAddr,
      long unusedAddr,
      long unusedKey,
      Object unusedContext,
      long flags) {
    int rc = msg == null ? -FiErrno.EINVAL : setMessage(msg);
    if (rc == 0 && family == COMPARE) {
      rc = dispatcher.compares.set(comparev, (int) compareCount);
    }
    if (rc == 0 && family != BASE) {
      rc = dispatcher.results.set(resultv, (int) resultCount);
    }
    if (rc < 0) {
      dispatcher.forget();
      return rc;
    }
    rc = check(family, op, datatype, msg.addr(), flags);
    return rc < 0 ? rc : post(msg.context(), flags);
  }

  /**
   * Posts a call that passed its checks on the walks, or defers it: {@link #behind} deferred calls,
   * or fenced while an operation of the endpoint is in flight. 0 or a negative {@code fi_errno}.
   */
  private int post(Object context, long flags) {
    boolean fenced = (flags & FiFlags.FENCE) != 0;
    if (behind) {
      return deferred.deferWalks(checks, context, poster.wantsCompletion(flags), fenced);
    }
    if (fenced && deferred.inFlight()) {
      if (holdingLock) {
        return deferred.deferWalks(checks, context, poster.wantsCompletion(flags), true);
      }
      deferred.lock();
      try {
        return deferred.deferWalks(checks, context, poster.wantsCompletion(flags), true);
      } finally {
        deferred.unlock();
      }
    }
    return poster.post(context, flags);
  }

  private int setMessage(AtomicMsg msg) {
    Ioc[] iov = msg.msgIov();
    int rc = dispatcher.operands.set(iov, iov == null ? 0 : iov.length);
    if (rc < 0) {
      return rc;
    }
    return dispatcher.targets.set(msg.rmaIov(), msg.rmaIov() == null ? 0 : msg.rmaIov().length);
  }

  /**
   * The checks of a call whose walks are filled: 0 when it may be posted, else the refusal (the
   * walks dropped).
   *
   * @param flags the call's operation flags
   */
  private int check(AtomicFamily family, FiOp op, FiDatatype datatype, long destAddr, long flags) {
    CallPoster p = poster;
    boolean enabled = p != null && !closed;
    int rc =
        checks.check(
            enabled,
            family,
            op,
            datatype,
            flags,
            destAddr,
            enabled && p.wantsCompletion(flags),
            enabled && p.hasQueue());
    if (rc < 0) {
      dispatcher.forget();
    }
    return rc;
  }

  /**
   * The checks of a one-element plain call, on its buffers and range as given.
   *
   * @param flags the call's operation flags (0 for an in-call element)
   * @param inCall whether the call is an in-call element, which reserves a completion entry
   */
  private int checkOne(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long flags,
      long destAddr,
      boolean inCall,
      MemorySegment buf,
      MemorySegment compare,
      MemorySegment result,
      long addr,
      long key) {
    CallPoster p = poster;
    boolean enabled = p != null && !closed;
    return checks.checkOne(
        enabled,
        family,
        op,
        datatype,
        flags,
        destAddr,
        enabled && (inCall || p.wantsCompletion(flags)),
        enabled && p.hasQueue(),
        buf,
        compare,
        result,
        addr,
        key);
  }
}
