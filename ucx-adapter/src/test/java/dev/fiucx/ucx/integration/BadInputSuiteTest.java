package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiOp;
import dev.fiucx.conformance.remote.JavaCommand;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.ucx.integration.BadInputRig.Case;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The bad-input suite over UCX shared memory and TCP, through the public API only, against a target
 * in another process: every case returns its exact errno (or throws its {@code FiException}, for
 * set-up calls), leaves both targets' bytes as they were, and the same endpoint then does an exact
 * fetch SUM. The classes of input are {@link BufferCases}, {@link CountCases}, {@link
 * ArgumentCases} and {@link StateCases}; results written into a read-only file mapping (which
 * crashed the JVM once) run in a child JVM; two threads calling one endpoint at once are refused
 * with {@code -FI_EBUSY} and corrupt nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RequiresProvider("ucx")
class BadInputSuiteTest {
  private final List<BadInputRig> rigs = new ArrayList<>();

  @TestFactory
  Stream<DynamicTest> sharedMemory() {
    return suite("shm");
  }

  @TestFactory
  Stream<DynamicTest> tcp() {
    return suite("tcp");
  }

  private Stream<DynamicTest> suite(String transport) {
    BadInputRig r = new BadInputRig(transport);
    rigs.add(r);
    List<Case> cases = new ArrayList<>();
    cases.addAll(BufferCases.cases(r));
    cases.addAll(CountCases.cases(r));
    cases.addAll(ArgumentCases.cases(r));
    cases.addAll(StateCases.cases(r));
    cases.add(
        BadInputRig.of(
            "two threads calling one endpoint at once",
            0,
            () -> {
              try {
                return twoThreadsOnOneEndpoint(r);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            }));
    List<DynamicTest> tests = new ArrayList<>(r.tests(cases));
    tests.add(
        DynamicTest.dynamicTest(
            transport + ": results into a READ_ONLY file mapping (child JVM)",
            () -> readOnlyMappingInAChildJvm(r)));
    return tests.stream();
  }

  @AfterAll
  void stop() {
    for (BadInputRig r : rigs) {
      r.close();
    }
  }

  /**
   * Two threads post fetch SUMs of 1 on the probe through the one endpoint while this thread reads
   * the queue: each call is taken (0), refused because the other thread is inside ({@code
   * -FI_EBUSY}), or finds the queue full ({@code -FI_EAGAIN}); every taken call completes once with
   * its own context, the fetched values are exactly the probe's values one after another, and the
   * probe moved by exactly the calls taken.
   */
  private static int twoThreadsOnOneEndpoint(BadInputRig r) throws InterruptedException {
    int perThread = 2000;
    long start = r.probeValue();
    MemorySegment results = r.arena.allocate(2L * perThread * 8, 8);
    Set<String> taken = ConcurrentHashMap.newKeySet();
    AtomicInteger refused = new AtomicInteger();
    List<Integer> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread[] posters = new Thread[2];
    for (int t = 0; t < 2; t++) {
      int thread = t;
      posters[t] =
          new Thread(
              () -> {
                for (int i = 0; i < perThread; i++) {
                  String context = thread + "/" + i;
                  int rc =
                      r.ini.ep.fetchAtomic(
                          r.one,
                          1,
                          null,
                          results.asSlice((long) (thread * perThread + i) * 8, 8),
                          null,
                          r.peer,
                          BadInputRig.PROBE,
                          r.key,
                          FiDatatype.UINT64,
                          FiOp.SUM,
                          context);
                  if (rc == 0) {
                    taken.add(context);
                  } else if (rc == -FiErrno.EBUSY) {
                    refused.incrementAndGet();
                  } else if (rc != -FiErrno.EAGAIN) {
                    unexpected.add(rc);
                  }
                }
              },
              "poster-" + t);
      posters[t].start();
    }
    Set<Object> completed = new HashSet<>();
    CqEntry[] entries = new CqEntry[16];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = new CqEntry();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while ((posters[0].isAlive() || posters[1].isAlive() || completed.size() < taken.size())
        && System.nanoTime() < deadline) {
      int n = r.ini.cq.read(entries, entries.length);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        r.ini.cq.readErr(e);
        throw new AssertionError("an error entry: " + e);
      }
      for (int i = 0; i < n; i++) {
        assertTrue(completed.add(entries[i].opContext), "twice: " + entries[i].opContext);
      }
    }
    posters[0].join();
    posters[1].join();
    assertEquals(List.of(), unexpected, "calls that returned neither 0, FI_EBUSY nor FI_EAGAIN");
    assertEquals(taken, completed, "completions against calls taken");
    long[] fetched = new long[taken.size()];
    int j = 0;
    for (String context : taken) {
      String[] w = context.split("/");
      long index = Long.parseLong(w[0]) * perThread + Long.parseLong(w[1]);
      fetched[j++] = results.getAtIndex(ValueLayout.JAVA_LONG, index);
    }
    java.util.Arrays.sort(fetched);
    for (int i = 0; i < fetched.length; i++) {
      assertEquals(start + i, fetched[i], "fetched values are the probe's, each once");
    }
    r.probeMovedBy(taken.size());
    System.err.println(
        r.transport
            + ": two threads on one endpoint: "
            + taken.size()
            + " taken, "
            + refused.get()
            + " refused with FI_EBUSY");
    return 0;
  }

  /** Results into a READ_ONLY mapping, in a child JVM: every call -FI_EINVAL, then a good SUM. */
  private static void readOnlyMappingInAChildJvm(BadInputRig r) throws Exception {
    List<String> command =
        JavaCommand.of(
            List.of(),
            ReadOnlyResultProcess.class,
            r.transport,
            HexFormat.of().formatHex(r.target.address()),
            Long.toString(r.key),
            Long.toString(BadInputRig.PROBE));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().put("UCX_LOG_FILE", "stderr");
    Process child = builder.start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      child.destroyForcibly();
      throw e;
    }
    if (!child.waitFor(60, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new AssertionError("the child JVM did not end: " + lines);
    }
    assertEquals(0, child.exitValue(), "the child JVM's exit status; it said " + lines);
    assertEquals("read-only true native true", lines.get(0));
    String[] cases = {
      "fetch-sum-uint64",
      "fetch-min-int64",
      "fetch-sum-double-complex",
      "fetch-sum-count-4",
      "fetch-read",
      "cswap-uint64",
      "fetch-msg"
    };
    for (int i = 0; i < cases.length; i++) {
      assertEquals(
          cases[i] + " " + -FiErrno.EINVAL + " " + FiErrno.errorString(-FiErrno.EINVAL),
          lines.get(1 + i));
    }
    assertEquals("probe " + r.probeValue() + " probe", lines.get(1 + cases.length));
    r.probeMovedBy(1);
    r.assertUnchanged();
    r.probe();
  }
}
