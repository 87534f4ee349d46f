package dev.fiucx.dispatch;

import dev.fiucx.AtomicFamily;
import dev.fiucx.Mechanism;
import dev.fiucx.semantics.AtomicCell;
import dev.fiucx.semantics.AtomicTable;
import dev.fiucx.spi.RemoteAtomicOp;
import java.util.List;
import java.util.Set;

/**
 * A provider's own view of the atomic table: the reference table, with the native ops its self-test
 * demoted moved to CAS_LOOP (saying why), and every cell whose mechanism is not built reported
 * unsupported. valid, query, dispatch and {@code info --provider} all read it.
 */
public final class ProviderTable {
  private ProviderTable() {}

  public static AtomicTable build(List<NativeAtomicsProof.Demotion> demoted, Set<Mechanism> built) {
    return AtomicTable.reference()
        .map(
            cell -> {
              AtomicCell c = cell;
              if (c.valid() && c.mechanism() == Mechanism.NATIVE) {
                for (NativeAtomicsProof.Demotion d : demoted) {
                  if (d.op() == c.nativeOp()
                      && d.size() == c.size()
                      && d.fetching() == fetches(c)) {
                    c = c.withMechanism(Mechanism.CAS_LOOP, d.reason());
                  }
                }
              }
              if (c.valid() && !built.contains(c.mechanism())) {
                c = c.unsupported(c.mechanism() + " is not built yet (" + c.reason() + ")");
              }
              return c;
            });
  }

  /** Whether the cell's native op asks for the old value (SWAP always does). */
  static boolean fetches(AtomicCell cell) {
    return cell.family() != AtomicFamily.BASE || cell.nativeOp() == RemoteAtomicOp.SWAP;
  }
}
