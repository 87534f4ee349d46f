/**
 * fiucx's core: the API ({@code dev.fiucx}), what a provider implements and uses ({@code
 * dev.fiucx.spi}) and the Micrometer binder ({@code dev.fiucx.metrics}) for everyone. A provider is
 * written against {@code dev.fiucx.spi} alone: it opens the engine's domain over its transport
 * ({@code Engine.openDomain}) and recognises the lock-word region by its access ({@code
 * LockWordRegion}), so no package of the engine is exported to it. The packages that are exported
 * by name go to the conformance module, perf and the command line, each named here with the reason
 * it needs them.
 */
// "module": the qualified exports name modules built after this one; "requires-automatic":
// Micrometer names its module in its manifest (Automatic-Module-Name), a stable name
@SuppressWarnings({"module", "requires-automatic"})
module dev.fiucx {
  // the metrics binder only: an application without Micrometer never loads it; one that binds the
  // metrics requires Micrometer itself (not transitive: that would make every module that builds
  // on this one need Micrometer to compile)
  requires static micrometer.core;

  exports dev.fiucx;
  exports dev.fiucx.spi;
  exports dev.fiucx.metrics;

  // the reference semantics: what the conformance suite checks against, what bench checks its
  // target with, what the JMH benchmarks measure, what `info` and the demo print
  exports dev.fiucx.semantics to
      dev.fiucx.conformance,
      dev.fiucx.perf,
      dev.fiucx.cli;
  // the frames under serve and connect, which the test-mode serve and bench's run control extend
  exports dev.fiucx.bootstrap to
      dev.fiucx.conformance,
      dev.fiucx.perf;
  // the completion ring and pending-operation slots that perf's JMH benchmarks measure
  exports dev.fiucx.completion to
      dev.fiucx.perf;

  uses dev.fiucx.spi.AtomicProvider;
}
