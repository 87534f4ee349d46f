package dev.fiucx.engine;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicAttr;
import dev.fiucx.CompletionQueue;
import dev.fiucx.Counter;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.EmulationCounts;
import dev.fiucx.Endpoint;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.Mechanism;
import dev.fiucx.completion.CompletionCounter;
import dev.fiucx.completion.CompletionRing;
import dev.fiucx.dispatch.NativeAtomicsProof;
import dev.fiucx.dispatch.ProviderTable;
import dev.fiucx.emulation.EmulationCounters;
import dev.fiucx.emulation.LockWords;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.Progress;
import dev.fiucx.spi.Transport;
import dev.fiucx.spi.TransportCompletions;
import dev.fiucx.spi.TransportPeer;
import dev.fiucx.validation.CallGuard;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A domain built on any {@link Transport}: it self-tests the transport's native atomics, derives
 * its own atomic table, and opens the endpoints, queues, counters, address vectors and regions of
 * fi_atomic(3). Providers open one with their transport; the engine is the same for all.
 */
public final class EngineDomain implements Domain, TransportCompletions {
  /** The mechanisms the engine carries out today. */
  static final Set<Mechanism> BUILT =
      EnumSet.of(Mechanism.NATIVE, Mechanism.CAS_LOOP, Mechanism.REMOTE_LOCK);

  /** The most entries a completion queue holds; a larger size is {@code FI_EINVAL}. */
  public static final int MAX_CQ_SIZE = 1 << 20;

  /** The size a completion queue gets when opened with size 0 (libfabric: provider's choice). */
  public static final int DEFAULT_CQ_SIZE = 1024;

  /** Token owner of the self-test's operations (endpoints use their index). */
  private static final int SELF_TEST = 0x7FFF_FFFF;

  private final String providerName;
  private final DomainAttr attr;
  private final NativeAtomicsProof selfTest = new NativeAtomicsProof();
  private final Transport transport;
  private final long keysResolvedAtOpen;
  private final long keysRevokedAtOpen;
  private final List<NativeAtomicsProof.Demotion> demotions;
  private final AtomicTable table;
  private final EmulationCounters emulationCounters;
  private final ExposedRegion lockRegion;
  private final byte[] address;
  private final int lockOwner;
  private final long lockLeaseNanos;
  private final Progress progress;
  private final ProgressThread progressThread;
  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();
  private final DomainErrors errors;

  /** Scratch of endpoints closed with operations still in flight: UCX may still write it. */
  private final List<java.lang.foreign.Arena> heldUntilTransportCloses =
      new CopyOnWriteArrayList<>();

  private volatile EngineEndpoint[] endpoints = new EngineEndpoint[0];
  private volatile boolean closing;

  /**
   * What every endpoint, CQ read and counter progress of this domain enters: a lock under {@code
   * threading=safe}; one that checks nothing under {@code threading=domain}; under manual progress
   * a refusing guard (its UCX worker and bookkeeping are one thread's); null under automatic
   * progress, where each endpoint has its own refusing guard.
   */
  private final CallGuard domainGuard;

  /** Set just before the transport closes: progress stops (endpoints closed before it drained). */
  private volatile boolean transportClosed;

  /** Under automatic progress: whether someone is inside {@link #progressOnce}. */
  private volatile boolean progressing;

  /** Under automatic progress: when a reader last progressed ({@link #assistProgress}). */
  private int assists;

  private static final java.lang.invoke.VarHandle PROGRESSING;
  private static final java.lang.invoke.VarHandle ASSISTS;

  static {
    try {
      PROGRESSING =
          java.lang.invoke.MethodHandles.lookup()
              .findVarHandle(EngineDomain.class, "progressing", boolean.class);
      ASSISTS =
          java.lang.invoke.MethodHandles.lookup()
              .findVarHandle(EngineDomain.class, "assists", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * @param openTransport opens the transport with the completions it must report to; it is asked
   *     for a thread-safe transport when {@code attr} asks for automatic progress
   */
  public EngineDomain(
      String providerName,
      DomainAttr attr,
      Function<TransportCompletions, Transport> openTransport) {
    if (providerName == null || attr == null) {
      throw new FiException(FiErrno.EINVAL, "a domain needs a provider name and attributes");
    }
    this.providerName = providerName;
    this.attr = attr;
    this.errors = new DomainErrors(providerName + " domain");
    if (attr.errorHandler() != null) {
      errors.setHandler(attr.errorHandler()); // before anything that may catch runs
    }
    this.domainGuard =
        switch (attr.threading()) {
          case SAFE -> CallGuard.serializing();
          case DOMAIN -> CallGuard.trusting();
          case ENDPOINT ->
              attr.progress() == DomainAttr.Progress.MANUAL ? CallGuard.refusing() : null;
        };
    this.lockLeaseNanos = attr.lockLease().toNanos();
    this.timeouts = new OperationTimeouts(attr);
    this.emulationCounters = new EmulationCounters(attr.progress() == DomainAttr.Progress.AUTO);
    this.transport = openTransport.apply(this);
    try {
      this.demotions = selfTest.run(transport, (long) SELF_TEST << 32);
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
    this.table = ProviderTable.build(demotions, BUILT);
    // the self-test resolved (and revoked) keys of its own: metrics count from here
    this.keysResolvedAtOpen = transport.keysResolved();
    this.keysRevokedAtOpen = transport.keysRevoked();
    try {
      this.lockRegion = transport.allocate(LockWords.REGION_BYTES, LockWords.REGION_ACCESS);
    } catch (RuntimeException e) { // e.g. an allocation limit below the lock region's size
      transport.close();
      throw e;
    }
    this.lockOwner = LockWords.ownerOf(transport.instanceId());
    this.address = composeAddress(transport.address(), lockRegion.key());
    transport.onInitiatorFailure(this::reclaimLocksOf);
    if (attr.progress() == DomainAttr.Progress.AUTO) {
      this.progressThread =
          new ProgressThread(
              new Progress() {
                @Override
                public int progress() {
                  return exclusiveProgress();
                }

                @Override
                public boolean await(long timeoutNanos) {
                  return awaitEvent(timeoutNanos);
                }

                @Override
                public void interruptAwait() {
                  transport.interruptAwait();
                }
              },
              this::anyInFlight,
              this::assists,
              t -> errors.caught(DomainErrors.Where.PROGRESS_THREAD, t),
              "fiucx-progress-" + providerName);
      this.progress = this::assistProgress;
    } else {
      this.progressThread = null;
      this.progress =
          new Progress() {
            @Override
            public int progress() {
              return progressOnce();
            }

            @Override
            public boolean await(long timeoutNanos) {
              return awaitEvent(timeoutNanos);
            }
          };
    }
  }

  /**
   * One round of progress: the transport's (completions, peers' software atomics), then the
   * emulation steps those completions made ready, posted here and not inside the transport's
   * callbacks. Called by the progress thread, or under manual progress by CQ and counter reads.
   * Never throws: what the transport or an emulation step throws is counted and handed to the error
   * handler, and progress goes on (a read must not throw, and a domain that stopped progressing
   * would stop serving its peers).
   */
  private int progressOnce() {
    if (transportClosed) {
      return 0; // a late CQ or counter read (or a progress thread) touches nothing
    }
    int events = 0;
    try {
      events = transport.progress();
    } catch (Throwable t) {
      errors.caught(DomainErrors.Where.PROGRESS, t);
    }
    for (EngineEndpoint ep : endpoints) {
      try {
        events += ep.drainEmulation();
      } catch (Throwable t) {
        errors.caught(DomainErrors.Where.EMULATION, t);
      }
      try {
        events += ep.startDeferred();
      } catch (Throwable t) {
        errors.caught(DomainErrors.Where.CALL, t);
      }
    }
    if (++progressRounds % ROUNDS_PER_PEER_CHECK == 0) {
      events += transport.checkPeers();
    }
    return events + timeouts.look(endpoints);
  }

  /**
   * After a round of progress that found nothing, by the thread that progresses: sleeps in the
   * transport until it has an event, at most {@code timeoutNanos} and never past the time an
   * emulation step is due (a remote-lock waiter's next look). False when the transport cannot wait.
   */
  private boolean awaitEvent(long timeoutNanos) {
    if (transportClosed) {
      return false;
    }
    long t = timeoutNanos;
    long now = System.nanoTime();
    for (EngineEndpoint ep : endpoints) {
      t = Math.min(t, ep.quietNanos(now));
    }
    if (t < MIN_AWAIT_NANOS) {
      return true; // a step is due (about) now: progress again
    }
    return transport.awaitEvent(t);
  }

  /** Shorter waits are not worth a system call: the caller progresses again instead. */
  private static final long MIN_AWAIT_NANOS = 2_000;

  /**
   * Progress rounds between two looks for dead peers ({@link Transport#checkPeers}, a flag read
   * when nobody died): an idle progress thread still makes a round every millisecond or less.
   */
  private static final int ROUNDS_PER_PEER_CHECK = 64;

  private int progressRounds; // by the one thread inside progressOnce

  /** Gives up on peers that leave an operation unanswered past the operation timeout. */
  private final OperationTimeouts timeouts;

  /**
   * Automatic progress, as the progress thread and readers share it: one at a time, the others skip
   * (the emulation steps expect one thread).
   */
  private int exclusiveProgress() {
    if (progressing || !PROGRESSING.compareAndSet(this, false, true)) {
      return 0;
    }
    try {
      return progressOnce();
    } finally {
      progressing = false;
    }
  }

  /**
   * What a CQ or counter read that found nothing does under automatic progress: progress itself,
   * and tell the progress thread, which steps aside while readers poll. On a machine with few cores
   * a reader spinning beside a spinning progress thread (and a spinning peer) costs more than the
   * read saves; a reader that polls makes progress anyway.
   */
  private int assistProgress() {
    // a count, not a clock: the clock costs as much as a shared-memory round trip here
    ASSISTS.setOpaque(this, assists + 1);
    return exclusiveProgress();
  }

  private int assists() {
    return (int) ASSISTS.getOpaque(this);
  }

  /**
   * Whether any endpoint has an operation in flight or a call deferred by {@code FI_FENCE} (a scan:
   * only before the progress parks).
   */
  private boolean anyInFlight() {
    for (EngineEndpoint ep : endpoints) {
      if (ep.inFlight() > 0 || ep.deferring()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A post left an operation pending: under automatic progress, the progress thread must not sleep
   * through its completion.
   */
  void wakeProgress() {
    if (progressThread != null) {
      progressThread.wake();
    }
  }

  /** Set-up calls on a closed domain throw {@code FI_EOPBADSTATE}. */
  private void requireOpen() {
    if (closing) {
      throw new FiException(FiErrno.EOPBADSTATE, "the domain is closed");
    }
  }

  /**
   * A domain's address ({@link DomainAddress}): this process, the key of its lock region, so a peer
   * that inserts it knows where this domain's remote locks live, and the transport's address.
   */
  private static byte[] composeAddress(byte[] transportAddress, long lockKey) {
    return new DomainAddress(ProcessIdentity.self(), lockKey, transportAddress).encode();
  }

  /** The transport's failure detection found an initiator dead: free the stripes it held. */
  private void reclaimLocksOf(long initiatorInstanceId) {
    if (closing) {
      return; // closing the transport fails the endpoints back to initiators; the region is gone
    }
    int freed =
        LockWords.reclaim(
            lockRegion.segment(),
            LockWords.ownerOf(initiatorInstanceId),
            (address, from, fromOffset, size) ->
                EngineMemoryRegion.writeIntoOpen(opened, address, from, fromOffset, size),
            emulationCounters);
    if (freed > 0) {
      emulationCounters.locksReclaimed(freed);
    }
  }

  /**
   * The key of the lock region named in a domain's address; throws {@code FI_EINVAL} on what is not
   * a fiucx address. For tests that play a lock holder; endpoints never need it.
   */
  public static long lockKeyOf(byte[] address) {
    return DomainAddress.decode(address).lockKey();
  }

  /**
   * The transport's address inside a fiucx address (for tests that speak to a peer's transport
   * directly); throws {@link FiException} FI_EINVAL for anything that is not one.
   */
  public static byte[] transportAddressOf(byte[] address) {
    return DomainAddress.decode(address).transportAddress();
  }

  /** This domain's address, for peers' address vectors ({@code fi_getname}). */
  byte[] address() {
    return address.clone();
  }

  /** The owner id this domain's endpoints write into the lock words they take. */
  public int lockOwner() {
    return lockOwner;
  }

  /** This domain's lock words, as its peers take them (to inspect, never to write). */
  public MemorySegment lockRegion() {
    return lockRegion.segment();
  }

  /** How long a held lock may stay unchanged before a waiter takes it over. */
  public long lockLeaseNanos() {
    return lockLeaseNanos;
  }

  @Override
  public String providerName() {
    return providerName;
  }

  /** This domain's atomic table: what it carries out, and how. */
  public AtomicTable table() {
    return table;
  }

  /** What the emulation engines did: CAS attempts, retries, skipped swaps, remote locks. */
  public EmulationCounters emulationCounters() {
    return emulationCounters;
  }

  @Override
  public EmulationCounts emulationCounts() {
    return emulationCounters;
  }

  /** The native ops the self-test found wrong on this machine. */
  public List<NativeAtomicsProof.Demotion> demotions() {
    return demotions;
  }

  @Override
  public Map<String, String> describe() {
    requireOpen();
    return DomainFacts.of(transport.describe(), attr, errors.summary(), demotions);
  }

  private volatile dev.fiucx.completion.LatencyRecorder latencyRecorder;

  /** The operation counts of every endpoint ever opened, closed ones too (metrics add them up). */
  public dev.fiucx.completion.OperationCounts[] operationCounts() {
    EngineEndpoint[] eps = endpoints;
    var counts = new dev.fiucx.completion.OperationCounts[eps.length];
    for (int i = 0; i < eps.length; i++) {
      counts[i] = eps[i].counts();
    }
    return counts;
  }

  /**
   * How many peers of this domain's address vectors the transport found dead (metrics read it from
   * any thread: it reads the peers' flags, never the transport).
   */
  public int failedPeers() {
    Set<TransportPeer> failed = Collections.newSetFromMap(new IdentityHashMap<>());
    for (AutoCloseable o : opened) {
      if (o instanceof EngineAddressVector av) {
        av.addFailedPeers(failed);
      }
    }
    return failed.size();
  }

  /** Peers' keys this domain resolved since it opened (metrics; any thread). */
  public long keysResolved() {
    return transport.keysResolved() - keysResolvedAtOpen;
  }

  /** Inserts of an address whose peer had failed (metrics). */
  private final LongAdder reconnects = new LongAdder();

  /** {@return inserts of an address whose peer had failed or been given up on} */
  public long reconnects() {
    return reconnects.sum();
  }

  /** {@return peers given up on because an operation to them outlived the operation timeout} */
  public long abandonedPeers() {
    return timeouts.abandoned();
  }

  /** Resolved keys whose target revoked them and said so, since it opened (metrics). */
  public long keysRevoked() {
    return transport.keysRevoked() - keysRevokedAtOpen;
  }

  /**
   * Where endpoints, present and future, send their operations' latencies (metrics set it); null
   * stops timing.
   */
  public synchronized void timeLatency(dev.fiucx.completion.LatencyRecorder recorder) {
    latencyRecorder = recorder;
    for (EngineEndpoint ep : endpoints) {
      ep.counts().timeLatency(recorder);
    }
  }

  /** Progresses the transport once (manual progress); returns the events processed. */
  public int progress() {
    return progress.progress();
  }

  /**
   * Whether completions may be written by a thread other than the poster: under automatic progress.
   * Under manual progress one thread at a time uses the domain's endpoints, queues and counters
   * (its UCX worker is single-threaded), so their bookkeeping needs no atomic read-modify-writes.
   */
  boolean concurrent() {
    return progressThread != null;
  }

  DomainAttr attr() {
    return attr;
  }

  Transport transport() {
    return transport;
  }

  @Override
  public AtomicAttr queryAtomic(FiDatatype datatype, FiOp op, long flags) {
    requireOpen();
    if (datatype == null || op == null) {
      throw new FiException(FiErrno.EINVAL, "fi_query_atomic needs a datatype and an op");
    }
    return table.query(datatype, op, flags);
  }

  @Override
  public synchronized Endpoint openEndpoint() {
    requireOpen();
    EngineEndpoint[] old = endpoints;
    EngineEndpoint[] next = java.util.Arrays.copyOf(old, old.length + 1);
    EngineEndpoint ep =
        new EngineEndpoint(
            this, old.length, progress, domainGuard != null ? domainGuard : CallGuard.refusing());
    ep.counts().timeLatency(latencyRecorder);
    next[old.length] = ep;
    endpoints = next;
    opened.add(ep);
    return ep;
  }

  @Override
  public AddressVector openAddressVector() {
    requireOpen();
    EngineAddressVector av = new EngineAddressVector(transport, reconnects);
    opened.add(av);
    return av;
  }

  /**
   * {@inheritDoc} Size 0 is {@link #DEFAULT_CQ_SIZE}; a negative size or one above {@link
   * #MAX_CQ_SIZE} is {@code FI_EINVAL}.
   */
  @Override
  public CompletionQueue openCompletionQueue(int size) {
    requireOpen();
    if (size < 0 || size > MAX_CQ_SIZE) {
      throw new FiException(
          FiErrno.EINVAL, "completion queue size " + size + " (0 to " + MAX_CQ_SIZE + ")");
    }
    CompletionRing cq =
        new CompletionRing(
            size == 0 ? DEFAULT_CQ_SIZE : size,
            progress,
            concurrent()
                ? CompletionRing.Producers.ONE_POSTER // until a second endpoint binds it
                : CompletionRing.Producers.ONE_THREAD,
            domainGuard);
    opened.add(cq);
    return cq;
  }

  @Override
  public Counter openCounter() {
    requireOpen();
    CompletionCounter counter = new CompletionCounter(progress, domainGuard);
    opened.add(counter);
    return counter;
  }

  /**
   * {@inheritDoc} A null, freed or non-native segment, access other than remote read and write, or
   * remote write to a read-only segment (peers' writes would fault in this process) is {@code
   * FI_EINVAL} or {@code FI_EACCES}.
   */
  @Override
  public dev.fiucx.MemoryRegion registerMemory(MemorySegment segment, long access) {
    requireOpen();
    requireAccess(access);
    if (segment == null || !segment.scope().isAlive() || !segment.isNative()) {
      throw new FiException(
          FiErrno.EINVAL, "registered memory must be a native segment whose arena is open");
    }
    if (segment.isReadOnly() && (access & FiFlags.REMOTE_WRITE) != 0) {
      throw new FiException(
          FiErrno.EACCES, "a read-only segment cannot be registered for FI_REMOTE_WRITE");
    }
    EngineMemoryRegion mr = new EngineMemoryRegion(transport.register(segment, access));
    opened.add(mr);
    return mr;
  }

  @Override
  public dev.fiucx.MemoryRegion allocateMemory(long size, long access) {
    requireOpen();
    requireAccess(access);
    EngineMemoryRegion mr = new EngineMemoryRegion(transport.allocate(size, access));
    opened.add(mr);
    return mr;
  }

  /** A region's access is FI_REMOTE_READ and/or FI_REMOTE_WRITE, nothing else. */
  private static void requireAccess(long access) {
    long remote = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
    if (access == 0 || (access & ~remote) != 0) {
      throw new FiException(
          FiErrno.EINVAL,
          "access must be FI_REMOTE_READ and/or FI_REMOTE_WRITE: 0x" + Long.toHexString(access));
    }
  }

  /**
   * Routes a transport completion to the endpoint (or self-test) named in its token. Never throws
   * into the transport's callback: a failure is counted and handed to the error handler. The
   * operation is not failed a second time, since how far its completion got is unknown and a second
   * completion could reach the queue twice.
   */
  @Override
  public void completed(long token, int status) {
    try {
      int owner = (int) (token >>> 32);
      if (owner == SELF_TEST) {
        selfTest.completed(token, status);
        return;
      }
      endpoints[owner].completed((int) token, status);
    } catch (Throwable t) {
      errors.caught(DomainErrors.Where.COMPLETION, t);
    }
  }

  @Override
  public void setErrorHandler(java.util.function.Consumer<? super Throwable> handler) {
    errors.setHandler(handler);
  }

  @Override
  public long errorCount() {
    return errors.total();
  }

  /**
   * {@return how many atomic calls of the domain's endpoints caught an exception inside them and
   * returned {@code -FI_EOTHER}} Part of {@link #errorCount}.
   */
  public long callErrorCount() {
    return errors.count(DomainErrors.Where.CALL);
  }

  /** Where an endpoint's calls report an exception inside them (see {@link CallFailures}). */
  DomainErrors errors() {
    return errors;
  }

  /**
   * An endpoint closed while operations were still in flight (its close's wait timed out): its
   * scratch, which UCX may still write, is freed only once the transport is closed.
   */
  void keepUntilTransportCloses(java.lang.foreign.Arena scratch) {
    heldUntilTransportCloses.add(scratch);
  }

  /** Closes everything the domain opened, once; a second close does nothing. */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        // closing the rest matters more than one failure
        errors.caught(DomainErrors.Where.CLOSE, e);
      }
    }
    if (progressThread != null) {
      progressThread.close();
    }
    transportClosed = true;
    lockRegion.close();
    transport.close();
    heldUntilTransportCloses.forEach(java.lang.foreign.Arena::close);
    heldUntilTransportCloses.clear();
  }
}
