package dev.fiucx.perf.bench;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicRegion;
import dev.fiucx.CompletionQueue;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.PeerRegion;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The initiator side of bench: per thread an endpoint and a completion queue of its own, all
 * connected to one target, kept open across runs (rounds and window sweeps reuse them). Under
 * automatic progress the threads share one thread-safe domain; under manual progress each thread
 * opens its own domain, because a manual domain's UCX worker is single-threaded and a CQ read
 * progresses the whole domain.
 */
final class BenchInitiator implements AutoCloseable {
  private final BenchConfig base;

  /** The target region's bytes every run's elements lie in (a matrix's widest cell's). */
  private final long regionBytes;

  /** The CPUs each measuring thread pins itself to ({@code -c}), or null. */
  private CpuSet cpus;

  private final List<Domain> domains = new ArrayList<>();
  private final Endpoint[] endpoints;
  private final CompletionQueue[] queues;
  private final long[] peers;
  private final List<AddressVector> vectors = new ArrayList<>();
  private final int[] domainOf;

  /** Each thread's typed layer over its endpoint ({@code --api typed}), made at its first run. */
  private final AtomicRegion[] typed;

  /**
   * Call buffers of runs that may have left calls in flight (one stopped on an error): they live as
   * long as the domains, since a progress thread may still write fetched values into them. A run
   * that ended with every call completed frees its own at once, so a matrix of many cells does not
   * pile them up.
   */
  private final List<Arena> keptBuffers = new ArrayList<>();

  /** The byte offset of thread 0's elements in the target region (one of bench -P's initiators). */
  private long elementsAt;

  /** What the last thread to warm up does before all measure (bench -P's start signal), or null. */
  private Runnable beforeMeasuring;

  /** Whether runs keep every fetched value ({@code --fetched}). */
  private boolean keepFetched;

  /** What each thread fetched in the last run, when kept. */
  private long[][] lastFetched;

  /**
   * Opens the domains, endpoints and queues; {@link #connect} then points them at a target.
   *
   * @param maxWindow the largest window any run will use: each completion queue holds that many
   * @param regionBytes the target region's bytes the runs use
   */
  BenchInitiator(BenchConfig cfg, int maxWindow, long regionBytes) {
    this.base = cfg;
    this.regionBytes = regionBytes;
    int threads = cfg.threads();
    endpoints = new Endpoint[threads];
    queues = new CompletionQueue[threads];
    peers = new long[threads];
    domainOf = new int[threads];
    typed = new AtomicRegion[threads];
    // automatic progress shares one domain among the threads, unless the application promised
    // to serialize every call of a domain (threading=domain): then each thread has its own
    boolean shared =
        cfg.progress() == DomainAttr.Progress.AUTO
            && cfg.threading() != DomainAttr.Threading.DOMAIN;
    try {
      for (int t = 0; t < threads; t++) {
        if (t == 0 || !shared) {
          Domain d = Fabric.openDomain("ucx", cfg.domainAttr());
          domains.add(d);
          vectors.add(d.openAddressVector());
        }
        Domain d = domains.getLast();
        queues[t] = d.openCompletionQueue(Math.max(maxWindow, 16));
        endpoints[t] = d.openEndpoint();
        endpoints[t].bind(vectors.getLast());
        endpoints[t].bind(queues[t], FiFlags.TRANSMIT);
        endpoints[t].enable();
        domainOf[t] = domains.size() - 1;
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Inserts the target's address into every domain's address vector. */
  void connect(byte[] targetAddress) {
    long[] byDomain = new long[vectors.size()];
    for (int i = 0; i < vectors.size(); i++) {
      byDomain[i] = vectors.get(i).insert(targetAddress);
    }
    for (int t = 0; t < peers.length; t++) {
      peers[t] = byDomain[domainOf[t]];
    }
  }

  /**
   * From now on each measuring thread pins itself to {@code set} before it makes its first call,
   * and reads back what the kernel allows it ({@link BenchResult#cpusAllowed}).
   */
  void pinTo(CpuSet set) {
    this.cpus = set;
  }

  /** Thread {@code t}'s elements start at {@code offset + t * stride} of the region from now on. */
  void elementsAt(long offset) {
    this.elementsAt = offset;
  }

  /**
   * Runs {@code action} once all threads have warmed up and before any measures (in the last thread
   * to arrive, the others waiting): one initiator of bench -P waits there for the start.
   */
  void beforeMeasuring(Runnable action) {
    this.beforeMeasuring = action;
  }

  CompletionQueue queue(int thread) {
    return queues[thread];
  }

  /** Runs from now on keep every value their calls fetch (see {@link #fetched}). */
  void keepFetched() {
    keepFetched = true;
  }

  /** What each thread's calls fetched in the last run, in completion order, or null. */
  long[][] fetched() {
    return lastFetched;
  }

  /** Every domain: one shared by the threads, or one per thread under manual progress. */
  List<Domain> domains() {
    return List.copyOf(domains);
  }

  /** The first thread's domain: its facts stand for all. */
  Domain domain() {
    return domains.getFirst();
  }

  Endpoint endpoint(int thread) {
    return endpoints[thread];
  }

  long peer(int thread) {
    return peers[thread];
  }

  /**
   * One measured run of {@code cfg} (this initiator's cell and threads; its window may differ): the
   * target's region is zeroed, the target progresses, every thread warms up, then all measure
   * together; afterwards the target's bytes are checked.
   */
  BenchResult run(BenchConfig cfg, BenchTarget link, PrintStream progressOut) throws IOException {
    return run(cfg, link, progressOut, true);
  }

  /**
   * The same; with {@code samples} false the threads record no latency samples and read the clock
   * only when they start and end measuring, so the overall time per call holds no clock reads.
   */
  BenchResult run(BenchConfig cfg, BenchTarget link, PrintStream progressOut, boolean samples)
      throws IOException {
    if (cfg.threads() != base.threads()) {
      throw new IllegalArgumentException("a run has the initiator's threads");
    }
    int threads = cfg.threads();
    AtomicLong[] counters = new AtomicLong[threads];
    for (int t = 0; t < threads; t++) {
      counters[t] = new AtomicLong();
    }
    ThreadRun[] runs = new ThreadRun[threads];
    ProgressLine[] progress = new ProgressLine[1];
    CyclicBarrier measureTogether =
        new CyclicBarrier(
            threads,
            () -> {
              if (beforeMeasuring != null) {
                beforeMeasuring.run();
              }
              for (AtomicLong c : counters) {
                c.set(0);
              }
              progress[0] = new ProgressLine(counters, progressOut, "bench");
            });
    Arena buffers = Arena.ofShared();
    boolean allCompleted = false;
    try {
      link.zero();
      link.start();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        runs[t] = new ThreadRun(t, cfg, link.key(), counters[t], measureTogether, samples, buffers);
        workers.add(Thread.ofPlatform().name("fiucx-bench-" + t).start(runs[t]));
      }
      try {
        for (Thread w : workers) {
          w.join();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the run was on", e);
      } finally {
        if (progress[0] != null) {
          progress[0].close();
        }
      }
      byte[] region = link.stop();
      for (ThreadRun r : runs) {
        if (r.pinFailure != null) {
          throw new IOException("measuring thread " + r.thread + ": " + r.pinFailure);
        }
      }
      if (keepFetched) {
        lastFetched = new long[threads][];
        for (int t = 0; t < threads; t++) {
          lastFetched[t] = runs[t].poster.fetched();
        }
      }
      BenchResult result =
          collect(cfg, runs, region, keepFetched ? lastFetched : null, link.exclusive());
      allCompleted = result.error() == 0;
      return result;
    } finally {
      if (allCompleted) {
        buffers.close();
      } else {
        keptBuffers.add(buffers);
      }
    }
  }

  private static BenchResult collect(
      BenchConfig cfg, ThreadRun[] runs, byte[] region, long[][] fetched, boolean exclusive) {
    int threads = runs.length;
    long[] ops = new long[threads];
    long[] calls = new long[threads];
    Histogram all = new Histogram(1, MeasuringLoop.HIGHEST_NANOS, 3);
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    int error = 0;
    List<String> allowed = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ThreadRun r = runs[t];
      ops[t] = r.measured;
      calls[t] = r.warmedUp + r.measured;
      all.add(r.loop.histogram());
      start = Math.min(start, r.loop.startNanos());
      end = Math.max(end, r.loop.endNanos());
      if (error == 0) {
        error = r.rc;
      }
      if (r.cpusAllowed != null) {
        allowed.add(r.cpusAllowed);
      }
    }
    TargetCheck check;
    if (error != 0) {
      check = new TargetCheck(false, false, "not checked: a thread failed");
    } else {
      check = region != null ? TargetCheck.of(cfg, region, calls) : TargetCheck.SHARED;
      if (fetched != null) {
        check = check.and(TargetCheck.ofFetched(cfg, fetched, exclusive));
      }
    }
    return new BenchResult(
        cfg, ops, calls, (end - start) / 1e9, all, error, check, List.copyOf(allowed), start, end);
  }

  /** One thread of a run: its buffers, its loop, its warm-up and its measurement. */
  private final class ThreadRun implements Runnable {
    final int thread;
    final BenchConfig cfg;
    final long key;
    final AtomicLong counter;
    final CyclicBarrier measureTogether;
    final boolean samples;
    final Arena buffers;
    MeasuringLoop loop;
    CallPoster poster;
    long warmedUp;
    long measured;
    int rc;

    /** This thread's Cpus_allowed_list after it pinned itself, or null when not pinned. */
    String cpusAllowed;

    /** Why this thread could not pin itself, or null. */
    String pinFailure;

    ThreadRun(
        int thread,
        BenchConfig cfg,
        long key,
        AtomicLong counter,
        CyclicBarrier measureTogether,
        boolean samples,
        Arena buffers) {
      this.samples = samples;
      this.buffers = buffers;
      this.thread = thread;
      this.cfg = cfg;
      this.key = key;
      this.counter = counter;
      this.measureTogether = measureTogether;
    }

    @Override
    public void run() {
      if (cpus != null) {
        try {
          cpusAllowed = Pinning.pinAndCheck(cpus);
        } catch (RuntimeException e) {
          pinFailure = e.getMessage();
        }
      }
      if (pinFailure == null) {
        warmUp();
      }
      try {
        measureTogether.await();
      } catch (InterruptedException | BrokenBarrierException e) {
        rc = rc == 0 ? -FiErrno.EINTR : rc;
        return;
      }
      if (pinFailure == null && rc == 0) {
        long duration = cfg.duration() == null ? 0 : cfg.duration().toNanos();
        rc = loop.run(cfg.iterations(), duration, samples);
        measured = loop.completed();
      }
    }

    /** Makes this thread's buffers and loop, then runs the warm-up calls. */
    private void warmUp() {
      poster =
          new CallPoster(
              endpoints[thread],
              cfg,
              peers[thread],
              elementsAt + thread * cfg.threadStride(),
              key,
              cfg.window(),
              buffers);
      if (keepFetched) {
        poster.keepFetched((int) (cfg.warmup() + cfg.iterations()));
      }
      if (cfg.api() == BenchConfig.Api.TYPED) {
        poster.useTyped(typedRegion(thread, key));
      }
      loop = new MeasuringLoop(poster, queues[thread], cfg.window(), counter);
      rc = loop.run(cfg.warmup(), 0, false);
      warmedUp = loop.completed();
    }
  }

  /**
   * Thread {@code thread}'s typed layer over its endpoint and queue, on the target's region of
   * {@code key}; made once, as the endpoint is, and reused by later runs.
   */
  private AtomicRegion typedRegion(int thread, long key) {
    AtomicRegion r = typed[thread];
    if (r == null || r.region().key() != key) {
      r =
          AtomicRegion.over(
              new ConnectedEndpoint(endpoints[thread], queues[thread], peers[thread]),
              new PeerRegion("bench", 0, key, regionBytes, RW));
      typed[thread] = r;
    }
    return r;
  }

  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;

  @Override
  public void close() {
    for (AtomicRegion r : typed) {
      if (r != null) {
        r.close();
      }
    }
    for (Endpoint ep : endpoints) {
      if (ep != null) {
        ep.close();
      }
    }
    for (Domain d : domains) {
      d.close();
    }
    keptBuffers.forEach(Arena::close);
  }
}
