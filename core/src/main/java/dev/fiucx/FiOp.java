package dev.fiucx;

/** The atomic operations: libfabric's {@code enum fi_op} (fi_atomic(3)), with its enum numbers. */
public enum FiOp {
  /** {@code FI_MIN}: target = min(target, operand). */
  MIN(0),
  /** {@code FI_MAX}: target = max(target, operand). */
  MAX(1),
  /** {@code FI_SUM}: target += operand. */
  SUM(2),
  /** {@code FI_PROD}: target *= operand. */
  PROD(3),
  /** {@code FI_LOR}: target = target || operand. */
  LOR(4),
  /** {@code FI_LAND}: target = target &amp;&amp; operand. */
  LAND(5),
  /** {@code FI_BOR}: target |= operand. */
  BOR(6),
  /** {@code FI_BAND}: target &amp;= operand. */
  BAND(7),
  /** {@code FI_LXOR}: target = (target != 0) ^ (operand != 0). */
  LXOR(8),
  /** {@code FI_BXOR}: target ^= operand. */
  BXOR(9),
  /** {@code FI_ATOMIC_READ}: no change; the fetch family reads the target. */
  ATOMIC_READ(10),
  /** {@code FI_ATOMIC_WRITE}: target = operand. */
  ATOMIC_WRITE(11),
  /** {@code FI_CSWAP}: target = operand if compare == target. */
  CSWAP(12),
  /** {@code FI_CSWAP_NE}: target = operand if compare != target. */
  CSWAP_NE(13),
  /** {@code FI_CSWAP_LE}: target = operand if compare &lt;= target. */
  CSWAP_LE(14),
  /** {@code FI_CSWAP_LT}: target = operand if compare &lt; target. */
  CSWAP_LT(15),
  /** {@code FI_CSWAP_GE}: target = operand if compare &gt;= target. */
  CSWAP_GE(16),
  /** {@code FI_CSWAP_GT}: target = operand if compare &gt; target. */
  CSWAP_GT(17),
  /**
   * {@code FI_MSWAP}: target = (operand &amp; compare) | (target &amp; ~compare): the bits compare
   * masks are swapped in.
   */
  MSWAP(18);

  private static final FiOp[] BY_ID = values();

  private final int id;

  FiOp(int id) {
    this.id = id;
  }

  /** {@return libfabric's enum number} */
  public int id() {
    return id;
  }

  /** {@return libfabric's name, e.g. {@code FI_CSWAP_LE}} */
  public String fiName() {
    return "FI_" + name();
  }

  /** {@return whether this is one of the compare family's ops, CSWAP .. MSWAP} */
  public boolean isCompareOp() {
    return id >= CSWAP.id;
  }

  /**
   * {@return the op by libfabric's enum number, or null}
   *
   * @param id libfabric's enum number
   */
  public static FiOp ofId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /**
   * {@return the op by libfabric's name ({@code FI_SUM}) or its short name ({@code SUM}), or null}
   *
   * @param name e.g. {@code FI_SUM} or {@code SUM}
   */
  public static FiOp ofName(String name) {
    String n = name.startsWith("FI_") ? name.substring(3) : name;
    for (FiOp o : BY_ID) {
      if (o.name().equals(n)) {
        return o;
      }
    }
    return null;
  }
}
