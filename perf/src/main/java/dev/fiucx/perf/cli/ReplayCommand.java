package dev.fiucx.perf.cli;

import dev.fiucx.conformance.replay.ReferenceEngine;
import dev.fiucx.conformance.replay.ReplayEngine;
import dev.fiucx.conformance.replay.Replayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code fiucx replay}: runs JSON Lines vectors (shared/VECTORS.md) through an engine. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Replay atomic test vectors and compare every byte; exit 1 on any failure.")
final class ReplayCommand implements Callable<Integer> {
  @Option(
      names = "--engine",
      defaultValue = "reference",
      description = "engine: reference (default)")
  String engine;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "JSON Lines vector files")
  List<Path> files;

  @Override
  public Integer call() {
    for (Path f : files) {
      if (!Files.isReadable(f)) {
        System.err.println("fiucx replay: cannot read " + f);
        return 2;
      }
    }
    ReplayEngine e =
        switch (engine) {
          case "reference" -> new ReferenceEngine();
          default -> null;
        };
    if (e == null) {
      System.err.println("fiucx replay: unknown engine '" + engine + "' (known: reference)");
      return 2;
    }
    try (e) {
      Replayer.Summary s = new Replayer(e, System.out).replay(files);
      return s.failed() > 0 ? 1 : 0;
    }
  }
}
