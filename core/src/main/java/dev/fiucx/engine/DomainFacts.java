package dev.fiucx.engine;

import dev.fiucx.DomainAttr;
import dev.fiucx.dispatch.NativeAtomicsProof;
import dev.fiucx.emulation.LockWords;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What a domain's {@code describe} says beyond its transport's facts: its settings in words. */
final class DomainFacts {
  private DomainFacts() {}

  /**
   * The transport's facts, then the domain's: progress, errors survived, threading, the remote
   * lock's lease, the timeouts and the native self-test's verdict.
   */
  static Map<String, String> of(
      Map<String, String> transportFacts,
      DomainAttr attr,
      String errorSummary,
      List<NativeAtomicsProof.Demotion> demotions) {
    Map<String, String> facts = new LinkedHashMap<>(transportFacts);
    facts.put("progress", attr.progress().name().toLowerCase(Locale.ROOT));
    facts.put("errors", "caught and survived: " + errorSummary);
    facts.put(
        "threading",
        switch (attr.threading()) {
          case SAFE -> "safe (every call serialized by the domain's lock)";
          case DOMAIN -> "domain (the application serializes every call; nothing is checked)";
          case ENDPOINT -> "endpoint (one thread at a time per endpoint; another gets FI_EBUSY)";
        });
    facts.put(
        "remote locks",
        LockWords.STRIPES
            + " lock words; a lock unchanged for "
            + attr.lockLease().toMillis()
            + " ms ("
            + DomainAttr.LOCK_LEASE_OPTION
            + ") is taken over, and a holder that took half of that puts nothing and starts over");
    facts.put(
        "timeouts",
        "an operation in flight for "
            + attr.operationTimeout().toMillis()
            + " ms ("
            + DomainAttr.OPERATION_TIMEOUT_OPTION
            + ") ends with FI_ETIMEDOUT; a key's resolution waits "
            + attr.controlTimeout().toMillis()
            + " ms ("
            + DomainAttr.CONTROL_TIMEOUT_OPTION
            + ")");
    facts.put(
        "self-test",
        demotions.isEmpty()
            ? "every native op proved right"
            : demotions.size()
                + " native ops gave wrong answers and were demoted: "
                + String.join(
                    ", ",
                    demotions.stream()
                        .map(d -> (d.fetching() ? "fetching " : "") + d.op() + "/" + d.size())
                        .toList()));
    return facts;
  }
}
