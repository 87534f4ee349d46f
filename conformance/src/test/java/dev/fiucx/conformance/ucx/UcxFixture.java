package dev.fiucx.conformance.ucx;

import dev.fiucx.AddressVector;
import dev.fiucx.CompletionQueue;
import dev.fiucx.CqEntry;
import dev.fiucx.CqErrEntry;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Endpoint;
import dev.fiucx.Fabric;
import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import java.util.Map;

/** An initiator over the ucx provider: domain, completion queue, address vector, endpoint. */
final class UcxFixture implements AutoCloseable {
  final Domain domain;
  final CompletionQueue cq;
  final AddressVector av;
  final Endpoint ep;
  private final CqEntry[] entries = {new CqEntry()};

  UcxFixture(String transport, DomainAttr.Progress progress) {
    domain = Fabric.openDomain("ucx", new DomainAttr(transport, progress, false, Map.of()));
    cq = domain.openCompletionQueue(256);
    av = domain.openAddressVector();
    ep = domain.openEndpoint();
    ep.bind(av);
    ep.bind(cq, FiFlags.TRANSMIT);
    ep.enable();
  }

  /** Waits for one completion and returns its context; fails on an error entry or timeout. */
  Object awaitCompletion() {
    int n = cq.sread(entries, 1, 10_000);
    if (n == -FiErrno.EAVAIL) {
      CqErrEntry e = new CqErrEntry();
      cq.readErr(e);
      throw new AssertionError("error completion: " + e);
    }
    if (n != 1) {
      throw new AssertionError("no completion: " + FiErrno.errorString(n));
    }
    return entries[0].opContext;
  }

  /** Waits for one error entry and returns it. */
  CqErrEntry awaitError() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      int n = cq.read(entries, 1);
      if (n == -FiErrno.EAVAIL) {
        CqErrEntry e = new CqErrEntry();
        cq.readErr(e);
        return e;
      }
      if (n > 0) {
        throw new AssertionError("expected an error entry, got " + entries[0]);
      }
    }
    throw new AssertionError("no error entry");
  }

  @Override
  public void close() {
    ep.close();
    av.close();
    domain.close();
  }
}
