package dev.fiucx.conformance.remote;

import dev.fiucx.AddressVector;
import dev.fiucx.AtomicFamily;
import dev.fiucx.CompletionQueue;
import dev.fiucx.ConnectedEndpoint;
import dev.fiucx.Connection;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * The initiator side of a test, a replay or the demo: a domain of some provider with a completion
 * queue, an address vector and an enabled endpoint, and the plain call of each family.
 */
public final class Initiator implements AutoCloseable {
  /** The initiator's domain. */
  public final Domain domain;

  /** The endpoint's completion queue. */
  public final CompletionQueue cq;

  /** The address vector the endpoint is bound to. */
  public final AddressVector av;

  /** The endpoint, enabled. */
  public final Endpoint ep;

  private final CqEntry[] entries = {new CqEntry()};

  /** The connection whose domain this is ({@link #over}), or null for a domain of its own. */
  private final Connection connection;

  /**
   * An initiator domain of {@code provider} with its endpoint, queue and address vector.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param transport the provider's transport name, or null for its default
   * @param progress automatic or manual progress
   */
  public Initiator(String provider, String transport, DomainAttr.Progress progress) {
    this(provider, new DomainAttr(transport, progress, false, Map.of()));
  }

  /**
   * Manual progress on {@code transport}; a transport name ending in {@code -ucp} ({@code shm-ucp})
   * also turns the ucx provider's direct path off, so every atomic goes through UCX.
   *
   * @param transport the provider's transport name, or null for its default
   * @return the attributes
   */
  public static DomainAttr manual(String transport) {
    return new DomainAttr(
        transportOf(transport),
        DomainAttr.Progress.MANUAL,
        false,
        transportOf(transport).equals(transport) ? Map.of() : Map.of("direct_path", "off"));
  }

  /**
   * {@return the provider's transport in a name that may end in {@code -ucp} (see {@link #manual})}
   *
   * @param transport the provider's transport name, or null for its default
   */
  public static String transportOf(String transport) {
    return transport != null && transport.endsWith("-ucp")
        ? transport.substring(0, transport.length() - 4)
        : transport;
  }

  /**
   * An initiator domain of {@code provider} opened with {@code attr}.
   *
   * @param provider the provider's name, e.g. {@code ucx}
   * @param attr the domain's attributes
   */
  public Initiator(String provider, DomainAttr attr) {
    connection = null;
    domain = Fabric.openDomain(provider, attr);
    cq = domain.openCompletionQueue(256);
    av = domain.openAddressVector();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
  }

  private Initiator(Connection c) {
    connection = c;
    domain = c.domain();
    av = c.addressVector();
    ConnectedEndpoint e = c.openEndpoint(256);
    cq = e.cq();
    ep = e.endpoint();
  }

  /**
   * {@return an initiator on {@code c}'s domain and address vector (the served peer is {@link
   * Connection#peer}), with an endpoint and queue of its own; closing it closes the connection}
   *
   * @param c a connection made by name ({@link Fabric#connect})
   */
  public static Initiator over(Connection c) {
    try {
      return new Initiator(c);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * The family's plain call, {@code fi_atomic}, {@code fi_fetch_atomic} or {@code
   * fi_compare_atomic}, on {@code count} elements at {@code addr} of {@code peer}'s region.
   *
   * @param family which call
   * @param op the operation
   * @param datatype the elements' datatype
   * @param count how many elements
   * @param operand the operands (null for a read)
   * @param compare the compare values (compare family only)
   * @param result receives the initial values (fetch and compare families)
   * @param peer the target's {@code fi_addr}
   * @param addr the first element's address in the region
   * @param key the region's key
   * @param context handed back in the completion
   * @return 0 once posted, or a negative {@code fi_errno}
   */
  public int post(
      AtomicFamily family,
      FiOp op,
      FiDatatype datatype,
      long count,
      MemorySegment operand,
      MemorySegment compare,
      MemorySegment result,
      long peer,
      long addr,
      long key,
      Object context) {
    return switch (family) {
      case BASE -> ep.atomic(operand, count, null, peer, addr, key, datatype, op, context);
      case FETCH ->
          ep.fetchAtomic(
              operand, count, null, result, null, peer, addr, key, datatype, op, context);
      case COMPARE ->
          ep.compareAtomic(
              operand, count, null, compare, null, result, null, peer, addr, key, datatype, op,
              context);
    };
  }

  /**
   * Waits for one completion and returns its context; throws on an error entry (with its errno) or
   * when none comes within 10 s.
   *
   * @return the completion's context
   */
  public Object awaitCompletion() {
    int n = cq.sread(entries, 1, 10_000);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      cq.readErr(e);
      throw new FiException(e.err, "error completion: " + e);
    }
    if (n != 1) {
      throw new FiException(n, "no completion within 10 s");
    }
    return entries[0].opContext;
  }

  /** {@return the one error entry waited for; throws on a success or when none comes in 10 s} */
  public CqErrEntry awaitError() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() - deadline < 0) {
      int n = cq.read(entries, 1);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        cq.readErr(e);
        return e;
      }
      if (n > 0) {
        throw new FiException(FiErrno.EOTHER, "expected an error entry, got " + entries[0]);
      }
    }
    throw new FiException(FiErrno.ETIMEDOUT, "no error entry within 10 s");
  }

  @Override
  public void close() {
    ep.close();
    if (connection != null) {
      connection.close(); // its domain, its address vector, the bootstrap's BYE
      return;
    }
    av.close();
    domain.close();
  }
}
