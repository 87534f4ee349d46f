package dev.fiucx.cli;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.perf.Bench;
import dev.fiucx.spi.AtomicProvider;
import java.util.List;
import picocli.CommandLine;

/**
 * Whether the provider a command opens can be opened here. A command whose provider is unknown or
 * unavailable (no libucp, a UCX of a version fiucx does not know, native access off) stops before
 * it starts anything, a target process, a serve or a child JVM, with the provider's reason in one
 * line on stderr and exit status 2, every command's status for "cannot run here". {@code FI_ENODEV}
 * that escapes a command later says the same in the same way, not as a stack trace.
 */
final class ProviderGate {
  /** The exit status of a command that cannot run here. */
  static final int CANNOT_RUN = 2;

  /** A command that opens a provider, or may, depending on its options. */
  interface OpensProvider {
    /** The provider's name for the options given, or null when this run opens none. */
    String providerToOpen();
  }

  private ProviderGate() {}

  /** The provider the parsed command opens, or null. */
  static String providerOf(CommandLine command) {
    if (command.getCommandSpec().userObject() instanceof OpensProvider c) {
      return c.providerToOpen();
    }
    return Bench.isBench(command) ? Bench.PROVIDER : null;
  }

  /** Why the provider {@code name} cannot be opened, or null when it can. */
  static String whyNot(String name, List<AtomicProvider> providers) {
    for (AtomicProvider p : providers) {
      if (p.name().equals(name)) {
        return p.isAvailable()
            ? null
            : "provider '" + name + "' unavailable: " + p.unavailabilityCause();
      }
    }
    return "unknown provider '"
        + name
        + "' (known: "
        + String.join(", ", providers.stream().map(AtomicProvider::name).toList())
        + ")";
  }

  /**
   * Why a command that threw {@code e} could not run here, when that is what {@code e} (or its
   * cause) tells: {@code FI_ENODEV}, without the errno's name. Null for any other failure.
   */
  static String whyNot(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof FiException f && f.errno() == FiErrno.ENODEV) {
        String errno = FiErrno.errorString(FiErrno.ENODEV) + ": ";
        String message = String.valueOf(f.getMessage());
        return message.startsWith(errno) ? message.substring(errno.length()) : message;
      }
    }
    return null;
  }

  /**
   * Says why on the command's stderr, after the command's name, and gives the exit status. A reason
   * that spans lines (a linker's message inside it) is joined into one: scripts and people read one
   * line.
   */
  static int refuse(CommandLine command, String why) {
    command
        .getErr()
        .println(
            command.getCommandSpec().qualifiedName()
                + ": "
                + why.strip().replaceAll("\\s*\\R\\s*", " "));
    command.getErr().flush();
    return CANNOT_RUN;
  }
}
