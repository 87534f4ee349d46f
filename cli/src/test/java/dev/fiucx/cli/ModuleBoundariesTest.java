package dev.fiucx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.conformance.remote.JavaCommand;
import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The walls between fiucx's modules, read from the module descriptors this JVM runs (the command
 * line's module graph: core, the ucx provider, the conformance module, perf and the command line
 * itself): exactly these packages are exported and opened, to everyone or to the modules named. A
 * change that widens a wall, or adds a package without deciding who sees it, fails here; so do
 * tests that silently run on the class path (then there are no such modules).
 */
class ModuleBoundariesTest {
  private static final Set<String> EVERYONE = Set.of();

  private static ModuleDescriptor descriptor(String name) {
    Module module = ModuleLayer.boot().findModule(name).orElse(null);
    assertTrue(
        module != null, name + " is not a module of this JVM: are the tests on the class path?");
    return module.getDescriptor();
  }

  /** Package to the modules it is exported to (empty: to everyone). */
  private static Map<String, Set<String>> exports(ModuleDescriptor d) {
    Map<String, Set<String>> out = new TreeMap<>();
    d.exports().forEach(e -> out.put(e.source(), new TreeSet<>(e.targets())));
    return out;
  }

  /** Package to the modules it is open to (empty: to everyone). */
  private static Map<String, Set<String>> opens(ModuleDescriptor d) {
    Map<String, Set<String>> out = new TreeMap<>();
    d.opens().forEach(o -> out.put(o.source(), new TreeSet<>(o.targets())));
    return out;
  }

  private static Set<String> unexported(ModuleDescriptor d) {
    Set<String> out = new TreeSet<>(d.packages());
    out.removeAll(exports(d).keySet());
    return out;
  }

  @Test
  void coreExportsItsApiAndSpiToEveryoneAndNothingOfItsEngineToTheProvider() {
    ModuleDescriptor core = descriptor("dev.fiucx");
    assertEquals(
        new TreeMap<>(
            Map.of(
                "dev.fiucx",
                EVERYONE,
                "dev.fiucx.spi",
                EVERYONE,
                "dev.fiucx.metrics",
                EVERYONE,
                "dev.fiucx.semantics",
                Set.of("dev.fiucx.conformance", "dev.fiucx.perf", "dev.fiucx.cli"),
                "dev.fiucx.bootstrap",
                Set.of("dev.fiucx.conformance", "dev.fiucx.perf"),
                "dev.fiucx.completion",
                Set.of("dev.fiucx.perf"))),
        exports(core));
    assertEquals(
        Set.of(
            "dev.fiucx.dispatch",
            "dev.fiucx.emulation",
            "dev.fiucx.engine",
            "dev.fiucx.validation"),
        unexported(core));
    assertEquals(Map.of(), opens(core));
    assertFalse(core.isOpen(), "core is no open module");
    assertEquals(Set.of("dev.fiucx.spi.AtomicProvider"), core.uses());
  }

  @Test
  void theUcxProviderExportsNothingAndProvidesTheSpi() {
    ModuleDescriptor ucx = descriptor("dev.fiucx.ucx");
    assertEquals(Map.of(), exports(ucx));
    assertEquals(Map.of(), opens(ucx));
    assertFalse(ucx.isOpen(), "the provider is no open module");
    assertEquals(1, ucx.provides().size());
    ModuleDescriptor.Provides provides = ucx.provides().iterator().next();
    assertEquals("dev.fiucx.spi.AtomicProvider", provides.service());
    assertEquals(List.of("dev.fiucx.ucx.UcxProvider"), provides.providers());
  }

  @Test
  void theConformanceModuleExportsItsSuiteReportsVectorsAndProcesses() {
    ModuleDescriptor conformance = descriptor("dev.fiucx.conformance");
    assertEquals(
        new TreeMap<>(
            Map.of(
                "dev.fiucx.conformance.suite", EVERYONE,
                "dev.fiucx.conformance.report", EVERYONE,
                "dev.fiucx.conformance.replay", EVERYONE,
                "dev.fiucx.conformance.vectors", EVERYONE,
                "dev.fiucx.conformance.remote", EVERYONE)),
        exports(conformance));
    assertEquals(
        new TreeMap<>(
            Map.of(
                "dev.fiucx.conformance.suite", Set.of("org.junit.platform.commons"),
                "dev.fiucx.conformance.report", Set.of("com.fasterxml.jackson.databind"))),
        opens(conformance));
  }

  @Test
  void perfExportsItsOnePackageToTheCommandLineAndOpensBenchToPicocliAndItsBenchmarksToJmh() {
    ModuleDescriptor perf = descriptor("dev.fiucx.perf");
    assertEquals(Map.of("dev.fiucx.perf", Set.of("dev.fiucx.cli")), exports(perf));
    assertEquals(
        Set.of("dev.fiucx.perf.bench", "dev.fiucx.perf.jmh", "dev.fiucx.perf.jmh.jmh_generated"),
        unexported(perf));
    assertEquals(
        new TreeMap<>(
            Map.of(
                "dev.fiucx.perf.bench", Set.of("info.picocli"),
                "dev.fiucx.perf.jmh", Set.of("jmh.core"),
                "dev.fiucx.perf.jmh.jmh_generated", Set.of("jmh.core"))),
        opens(perf));
  }

  @Test
  void theCommandLineExportsNothingOpensItsCommandsToPicocliAndJacksonAndDrawsNothing() {
    ModuleDescriptor cli = descriptor("dev.fiucx.cli");
    assertEquals(Map.of(), exports(cli));
    assertEquals(
        Map.of("dev.fiucx.cli", Set.of("info.picocli", "com.fasterxml.jackson.databind")),
        opens(cli));
    Set<String> required = new TreeSet<>();
    cli.requires().forEach(r -> required.add(r.name()));
    assertTrue(required.contains("dev.fiucx.perf"), required.toString());
    // only bench's plots draw, and they are perf's
    assertFalse(required.contains("java.desktop"), required.toString());
  }

  @Test
  void childJvmsRunTheirMainClassInItsModuleWithThisJvmsModuleOptions() {
    List<String> cmd = JavaCommand.of(List.of(), FiucxCli.class, "info");
    assertEquals("dev.fiucx.cli/dev.fiucx.cli.FiucxCli", cmd.get(cmd.indexOf("-m") + 1));
    assertEquals("info", cmd.getLast());
    // what this module's pom grants the test JVM (fiucx.test.argLine), by module
    assertTrue(
        cmd.contains("--enable-native-access=dev.fiucx,dev.fiucx.ucx,jucx,dev.fiucx.perf"),
        cmd.toString());
    assertTrue(cmd.stream().anyMatch(a -> a.startsWith("--module-path=")), cmd.toString());
    assertTrue(
        cmd.stream().anyMatch(a -> a.startsWith("--patch-module=dev.fiucx.cli=")), cmd.toString());
  }

  @Test
  void theEngineIsOutOfReachOfTheCommandLine() {
    Module core = ModuleLayer.boot().findModule("dev.fiucx").orElseThrow();
    Module cli = ModuleBoundariesTest.class.getModule();
    assertEquals("dev.fiucx.cli", cli.getName(), "this test runs inside the command line's module");
    assertTrue(core.isExported("dev.fiucx", cli));
    Module perf = ModuleLayer.boot().findModule("dev.fiucx.perf").orElseThrow();
    assertTrue(perf.isExported("dev.fiucx.perf", cli));
    assertFalse(perf.isExported("dev.fiucx.perf.bench", cli), "bench is perf's own");
    assertFalse(core.isExported("dev.fiucx.engine"), "engine is nobody's");
    assertFalse(core.isExported("dev.fiucx.emulation"), "emulation is nobody's");
    assertFalse(core.isExported("dev.fiucx.dispatch"), "dispatch is nobody's");
  }
}
