package dev.fiucx.conformance.suite;

import static org.junit.jupiter.api.Assertions.fail;

import dev.fiucx.conformance.suite.CheckResult.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance suite as JUnit 5 tests: subclass it, say which provider and transport in {@link
 * #config()}, and every check becomes one test, grouped by family and then by (op, datatype). A
 * check fails the build when the provider does not do what it reports. What could not be checked
 * shows as skipped (aborted, with the reason: JUnit counts it apart from what passed): the query of
 * a cell reported unsupported, a count limit beyond the suite's buffers, an error entry a transport
 * cannot provoke. A call form's check that an unsupported cell is refused with -FI_EOPNOTSUPP and
 * changes nothing is a check like any other: it passes or fails.
 *
 * <pre>{@code
 * class MyProviderConformanceTest extends AtomicConformanceSuite {
 *   protected SuiteConfig config() {
 *     return new SuiteConfig("myprovider", null, false);
 *   }
 * }
 * }</pre>
 */
public abstract class AtomicConformanceSuite {
  /** For a provider's test class. */
  protected AtomicConformanceSuite() {}

  /** {@return the provider, transport and target placement to check} */
  protected abstract SuiteConfig config();

  @TestFactory
  Stream<DynamicNode> everyCellEveryCallForm() {
    String unavailable = RequiresProvider.Condition.unavailable(config().provider());
    Assumptions.assumeTrue(unavailable == null, unavailable);
    List<CheckResult> results = Conformance.run(config(), r -> {});
    Map<String, Map<String, List<CheckResult>>> groups = new LinkedHashMap<>();
    for (CheckResult r : results) {
      boolean flag = !r.isCellCheck();
      String outer = flag ? "flags and completions" : r.family().label();
      String inner =
          (flag ? r.mechanism() + " " + r.family().label() + " " : "")
              + r.op().fiName()
              + " "
              + r.datatype().fiName();
      groups
          .computeIfAbsent(outer, k -> new LinkedHashMap<>())
          .computeIfAbsent(inner, k -> new ArrayList<>())
          .add(r);
    }
    return groups.entrySet().stream()
        .map(
            family ->
                DynamicContainer.dynamicContainer(
                    family.getKey(),
                    family.getValue().entrySet().stream()
                        .map(
                            cell ->
                                DynamicContainer.dynamicContainer(
                                    cell.getKey(), cell.getValue().stream().map(this::test)))));
  }

  private DynamicTest test(CheckResult r) {
    String name = r.call() + (r.status() == Status.UNSUPPORTED ? " (unsupported)" : "");
    return DynamicTest.dynamicTest(
        name,
        () -> {
          switch (r.status()) {
            case FAIL -> fail(r.detail());
            case UNSUPPORTED -> {
              if (!r.call().startsWith("fi_")) { // a call form's refusal was checked: it passed
                Assumptions.abort("not checked: " + r.detail());
              }
            }
            case PASS -> {}
          }
        });
  }
}
