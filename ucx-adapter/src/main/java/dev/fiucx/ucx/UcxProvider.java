package dev.fiucx.ucx;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.spi.AtomicProvider;
import dev.fiucx.spi.Engine;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/**
 * The {@code ucx} provider: fiucx's engine on a {@link UcxTransport}. {@link DomainAttr#transport}
 * picks UCX's transports ({@code shm}, {@code tcp}, or null for {@code UCX_TLS} / UCX's choice);
 * automatic progress opens a thread-safe UCX worker and a progress thread. It is available only
 * with a libucp whose struct layouts fiucx knows ({@link UcxLayout}).
 */
public final class UcxProvider implements AtomicProvider {
  /** The provider, as {@code ServiceLoader} makes it. */
  public UcxProvider() {}

  @Override
  public String name() {
    return "ucx";
  }

  @Override
  public boolean isAvailable() {
    return unavailabilityCause() == null;
  }

  @Override
  @SuppressWarnings("restricted")
  public String unavailabilityCause() {
    Module module = UcxProvider.class.getModule();
    if (!module.isNativeAccessEnabled()) {
      // on the module path core (its emulation reads results by address), this module and jucx
      // (JNI) need it; on the class path every class does
      return "native access is off: run java with --enable-native-access="
          + (module.isNamed()
              ? Domain.class.getModule().getName() + "," + module.getName() + ",jucx"
              : "ALL-UNNAMED");
    }
    try (Arena arena = Arena.ofConfined()) {
      SymbolLookup.libraryLookup("libucp.so.0", arena);
    } catch (IllegalArgumentException e) {
      return "libucp.so.0 not found: install Debian's libucx0 (apt-get install libucx0)";
    }
    try {
      return UcxSeries.checkLoaded();
    } catch (RuntimeException | LinkageError e) {
      UcxErrors.LOG.log(System.Logger.Level.WARNING, "cannot load UCX through jucx", e);
      return "cannot load UCX through jucx: " + e;
    }
  }

  @Override
  public Domain openDomain(DomainAttr attr) {
    UcxOptions options = UcxOptions.of(attr);
    return Engine.openDomain(name(), attr, completions -> new UcxTransport(completions, options));
  }
}
