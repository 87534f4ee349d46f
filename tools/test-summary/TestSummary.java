import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The closing lines of {@code ./fiucx test}: how many tests ran, passed, failed and were skipped in
 * each module, and why tests were skipped, read from surefire's XML reports; then one line per UCX
 * release the suite ran on (the host's and each kept under {@code target/ucx-releases/}, see
 * {@code tools/ucx-rootfs/test-releases}), the outcome of the newcomer's demo kept there, and the
 * steps run over verbs in the Soft-RoCE VM ({@code tools/verbs-vm/test-verbs}). Run
 * as a source file ({@code java TestSummary.java ROOT}): no build step, nothing on the class path.
 */
public final class TestSummary {
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : ".");
    Map<String, int[]> byModule = new TreeMap<>(); // tests, failures+errors, skipped
    Map<String, Integer> reasons = new TreeMap<>();
    read(root, byModule, reasons);
    printModules(byModule, reasons);
    Path releases = root.resolve("target/ucx-releases");
    if (Files.isDirectory(releases)) {
      System.out.println("fiucx test: per UCX release");
      try (Stream<Path> s = Files.list(releases)) {
        for (Path release : s.filter(Files::isDirectory).sorted().toList()) {
          Map<String, int[]> modules = new TreeMap<>();
          read(release, modules, new TreeMap<>());
          int[] all = new int[3];
          for (int[] m : modules.values()) {
            for (int i = 0; i < 3; i++) {
              all[i] += m[i];
            }
          }
          System.out.printf(
              "  UCX %-22s %7d tests: %7d passed, %d failed, %d skipped%n",
              release.getFileName(), all[0], all[0] - all[1] - all[2], all[1], all[2]);
        }
      }
      Path newcomer = releases.resolve("newcomer-demo.txt");
      if (Files.isRegularFile(newcomer)) {
        for (String line : Files.readAllLines(newcomer)) {
          System.out.println("fiucx test: " + line);
        }
      }
    }
    Path verbs = root.resolve("target/verbs-vm/summary.txt");
    if (Files.isRegularFile(verbs)) {
      System.out.println("fiucx test: over verbs (rc_verbs on Soft-RoCE, in a VM)");
      for (String line : Files.readAllLines(verbs)) {
        System.out.println("  " + line);
      }
    }
  }

  /** Adds up the surefire reports under {@code root}, by module, and the reasons for skips. */
  private static void read(Path root, Map<String, int[]> byModule, Map<String, Integer> reasons)
      throws Exception {
    List<Path> reports;
    try (Stream<Path> s = Files.walk(root, 5)) {
      reports =
          s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml"))
              .filter(p -> p.getParent().getFileName().toString().equals("surefire-reports"))
              .sorted()
              .toList();
    }
    var factory = DocumentBuilderFactory.newInstance();
    for (Path report : reports) {
      String module = root.relativize(report).getName(0).toString();
      if (module.equals("examples")) {
        module = root.relativize(report).subpath(0, 2).toString();
      }
      Element suite = factory.newDocumentBuilder().parse(report.toFile()).getDocumentElement();
      int[] m = byModule.computeIfAbsent(module, k -> new int[3]);
      m[0] += Integer.parseInt(suite.getAttribute("tests"));
      m[1] +=
          Integer.parseInt(suite.getAttribute("failures"))
              + Integer.parseInt(suite.getAttribute("errors"));
      m[2] += Integer.parseInt(suite.getAttribute("skipped"));
      NodeList skipped = suite.getElementsByTagName("skipped");
      for (int i = 0; i < skipped.getLength(); i++) {
        Element skip = (Element) skipped.item(i);
        String why = skip.getAttribute("message");
        if (why.isBlank()) { // an aborted test: the reason is the first line of its trace
          why = skip.getTextContent().strip().lines().findFirst().orElse("");
          why = why.replaceFirst("^org\\.opentest4j\\.TestAbortedException: ", "");
        }
        reasons.merge(reason(why), 1, Integer::sum);
      }
    }
  }

  private static void printModules(Map<String, int[]> byModule, Map<String, Integer> reasons) {
    int tests = 0;
    int failed = 0;
    int skipped = 0;
    System.out.println();
    System.out.println("fiucx test: what ran");
    for (var e : byModule.entrySet()) {
      int[] m = e.getValue();
      System.out.printf(
          "  %-16s %7d tests: %7d passed, %d failed, %d skipped%n",
          e.getKey(), m[0], m[0] - m[1] - m[2], m[1], m[2]);
      tests += m[0];
      failed += m[1];
      skipped += m[2];
    }
    System.out.printf(
        "  %-16s %7d tests: %7d passed, %d failed, %d skipped%n",
        "all", tests, tests - failed - skipped, failed, skipped);
    if (!reasons.isEmpty()) {
      System.out.println("fiucx test: why tests were skipped");
      List<Map.Entry<String, Integer>> sorted = new ArrayList<>(reasons.entrySet());
      sorted.sort((a, b) -> b.getValue() - a.getValue());
      int shown = 0;
      for (var e : sorted) {
        if (shown++ == 12) {
          System.out.printf("  ... and %d other reasons%n", sorted.size() - 12);
          break;
        }
        System.out.printf("  %7d  %s%n", e.getValue(), e.getKey());
      }
    }
  }

  /**
   * A skip's reason without what varies from test to test (a cell's own words after the first
   * colon of a "not checked" reason), so that alike skips count together.
   */
  private static String reason(String message) {
    if (message == null || message.isBlank()) {
      return "(no reason given)";
    }
    String m = message.strip();
    if (m.startsWith("not checked: ")) {
      String rest = m.substring("not checked: ".length());
      if (rest.startsWith("the provider's count")) {
        return "not checked: a count limit beyond the conformance suite's buffers";
      }
      if (rest.contains("dead peer")) {
        return "not checked: " + rest;
      }
      return "not checked: the query of a cell the man page does not define (refusals checked)";
    }
    return m.length() > 160 ? m.substring(0, 157) + "..." : m;
  }
}
