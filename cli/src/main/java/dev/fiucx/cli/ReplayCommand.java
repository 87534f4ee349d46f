package dev.fiucx.cli;

import dev.fiucx.Fabric;
import dev.fiucx.conformance.replay.ProviderEngine;
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

/** {@code fiucx replay}: runs JSON Lines vectors (docs/conformance.md) through an engine. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Replay atomic test vectors and compare every byte; exit 1 on any failure.")
final class ReplayCommand implements Callable<Integer>, ProviderGate.OpensProvider {
  @Option(
      names = "--engine",
      defaultValue = "reference",
      description =
          "reference (the reference semantics, in this process) or a provider name such as"
              + " ucx (the target in a second process)")
  String engine;

  @Option(
      names = "--transport",
      description =
          "the provider's transport: shm, tcp, rc_verbs or a UCX_TLS list (default: the provider's choice)")
  String transport;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "JSON Lines vector files")
  List<Path> files;

  /** The engine when it is a provider; the reference and unknown engines are this command's. */
  @Override
  public String providerToOpen() {
    return Fabric.providers().stream().anyMatch(p -> p.name().equals(engine)) ? engine : null;
  }

  @Override
  public Integer call() {
    for (Path f : files) {
      if (!Files.isReadable(f)) {
        System.err.println("fiucx replay: cannot read " + f);
        return 2;
      }
    }
    ReplayEngine e;
    if (engine.equals("reference")) {
      e = new ReferenceEngine();
    } else if (Fabric.providers().stream().anyMatch(p -> p.name().equals(engine))) {
      e = new ProviderEngine(engine, transport, true);
    } else {
      System.err.println(
          "fiucx replay: unknown engine '"
              + engine
              + "' (known: reference"
              + Fabric.providers().stream().map(p -> ", " + p.name()).reduce("", String::concat)
              + ")");
      return 2;
    }
    try (e) {
      Replayer.Summary s = new Replayer(e, System.out).replay(files);
      return s.failed() > 0 ? 1 : 0;
    }
  }
}
