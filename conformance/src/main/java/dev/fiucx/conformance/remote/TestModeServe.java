package dev.fiucx.conformance.remote;

import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiException;
import dev.fiucx.MemoryRegion;
import dev.fiucx.PeerRegion;
import dev.fiucx.bootstrap.BootstrapServer;
import dev.fiucx.bootstrap.Frame;
import dev.fiucx.bootstrap.Welcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A serve in test mode: what {@link dev.fiucx.Fabric#serve} is (a domain with automatic progress,
 * one named region, the bootstrap's HELLO and WELCOME, so {@link dev.fiucx.Fabric#connect} reaches
 * it too), and on the same bootstrap connections the test mode's messages ({@link TestModeWire}):
 * set and read the region's bytes, close it, renew it, read the domain's facts. It offers what
 * tests need and a user's serve must not: registered (user) memory as well as allocated, and
 * closing or renewing a region while peers hold its key. The WELCOME follows: after a CLOSE it
 * lists no region, after a RENEW the new key.
 *
 * <p>Public for the tests of a provider that check the test mode itself; other tests start one in a
 * process ({@link TargetProcess}) and drive it with {@link RemoteTarget}.
 */
public final class TestModeServe implements AutoCloseable {
  /** The region's name in the WELCOME and in every message. */
  static final String REGION = "target";

  private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(10);
  private static final int MAX_CONNECTIONS = 64;

  private final String provider;
  private final String transport;
  private final long length;
  private final boolean register;
  private final long access;
  private final Arena arena = Arena.ofShared();
  private final Domain domain;
  private final byte[] address;
  private final BootstrapServer bootstrap;
  private MemoryRegion region;
  private boolean regionOpen;
  private boolean closed;

  /**
   * Opens the domain, exposes the region and starts the bootstrap on {@code bind}.
   *
   * @param bind the bootstrap's address and port (port 0: one is picked)
   * @param length the region's length in bytes
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport, or null for its default
   * @param register expose registered user memory (UCX then carries out atomics in software, inside
   *     this process's progress) instead of memory the provider allocated
   * @param access {@code FiFlags.REMOTE_READ} and/or {@code REMOTE_WRITE}
   */
  public TestModeServe(
      String provider,
      String transport,
      long length,
      boolean register,
      long access,
      InetSocketAddress bind) {
    this(provider, transport, length, register, access, bind, 0, new byte[0]);
  }

  /**
   * Opens the domain, exposes the region, writes {@code preset} into it at {@code presetOffset} and
   * only then starts the bootstrap on {@code bind}: no peer sees the region before it holds its
   * starting bytes (what a serve that is restarted under load must do).
   *
   * @param bind the bootstrap's address and port (port 0: one is picked)
   * @param length the region's length in bytes
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport, or null for its default
   * @param register expose registered user memory instead of memory the provider allocated
   * @param access {@code FiFlags.REMOTE_READ} and/or {@code REMOTE_WRITE}
   * @param presetOffset where {@code preset} goes in the region
   * @param preset the region's starting bytes there (the rest is zero)
   */
  public TestModeServe(
      String provider,
      String transport,
      long length,
      boolean register,
      long access,
      InetSocketAddress bind,
      long presetOffset,
      byte[] preset) {
    this.provider = provider;
    this.transport = transport;
    this.length = length;
    this.register = register;
    this.access = access;
    domain =
        Fabric.openDomain(
            provider, new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
    try {
      address = domain.openEndpoint().name();
      region = expose();
      MemorySegment.copy(
          MemorySegment.ofArray(preset), 0, region.segment(), presetOffset, preset.length);
      regionOpen = true;
      bootstrap =
          new BootstrapServer(bind, welcome(), null, FRAME_TIMEOUT, MAX_CONNECTIONS, this::answer);
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot listen on " + bind, e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** {@return the bootstrap's address (its port is the one picked when 0 was asked for)} */
  public InetSocketAddress address() {
    return bootstrap.address();
  }

  private MemoryRegion expose() {
    return register
        ? domain.registerMemory(arena.allocate(length, 16), access)
        : domain.allocateMemory(length, access);
  }

  private Welcome welcome() {
    List<PeerRegion> regions = new ArrayList<>();
    if (regionOpen) {
      regions.add(new PeerRegion(REGION, region.segment().address(), region.key(), length, access));
    }
    return new Welcome(provider, transport, address, regions);
  }

  /** One request at a time: a RENEW must not race a GET of the region it replaces. */
  private synchronized Frame answer(Frame f) throws dev.fiucx.bootstrap.BootstrapException {
    TestModeWire.Request r = TestModeWire.parse(f);
    if (r.type() == TestModeWire.FACT) {
      String value = domain.describe().get(r.name());
      return value == null
          ? TestModeWire.failed("no fact named '" + r.name() + "'")
          : new Frame(TestModeWire.DATA, value.getBytes(StandardCharsets.UTF_8));
    }
    if (!r.name().equals(REGION)) {
      return TestModeWire.failed("no region named '" + r.name() + "'");
    }
    try {
      return switch (r.type()) {
        case TestModeWire.SET -> {
          MemorySegment.copy(
              MemorySegment.ofArray(r.bytes()), 0, open(r), r.offset(), r.bytes().length);
          yield TestModeWire.ok();
        }
        case TestModeWire.GET ->
            r.length() > TestModeWire.MAX_CHUNK
                ? TestModeWire.failed(
                    "a GET of "
                        + r.length()
                        + " bytes (at most "
                        + TestModeWire.MAX_CHUNK
                        + " per message)")
                : new Frame(
                    TestModeWire.DATA,
                    open(r).asSlice(r.offset(), r.length()).toArray(ValueLayout.JAVA_BYTE));
        case TestModeWire.CLOSE -> {
          closeRegion();
          yield TestModeWire.ok();
        }
        default -> {
          closeRegion();
          region = expose();
          regionOpen = true;
          bootstrap.welcome(welcome());
          yield TestModeWire.renewed(region.segment().address(), region.key());
        }
      };
    } catch (IndexOutOfBoundsException | IllegalArgumentException | FiException e) {
      return TestModeWire.failed(e.getMessage());
    }
  }

  /** The region's memory, checked against the request's bytes. */
  private MemorySegment open(TestModeWire.Request r) {
    if (!regionOpen) {
      throw new IllegalArgumentException("region '" + REGION + "' is closed");
    }
    if (r.offset() < 0 || r.length() < 0 || r.offset() > length - r.length()) {
      throw new IndexOutOfBoundsException(
          "bytes "
              + r.offset()
              + " .. "
              + (r.offset() + r.length())
              + " are outside region '"
              + REGION
              + "' of "
              + length);
    }
    return region.segment();
  }

  /** Revokes the region's key (every peer that resolved it drops it first) and unmaps it. */
  private void closeRegion() {
    if (regionOpen) {
      regionOpen = false;
      bootstrap.welcome(welcome());
      region.close();
    }
  }

  /** Stops the bootstrap, closes the region and the domain. Closing twice does nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (bootstrap != null) {
        bootstrap.close();
      }
      if (region != null) {
        region.close(); // closing twice is allowed
      }
    } finally {
      domain.close();
      arena.close();
    }
  }
}
