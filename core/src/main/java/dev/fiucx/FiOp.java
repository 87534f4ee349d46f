package dev.fiucx;

/** The atomic operations: libfabric's {@code enum fi_op} (fi_atomic(3)), with its enum numbers. */
public enum FiOp {
  MIN(0),
  MAX(1),
  SUM(2),
  PROD(3),
  LOR(4),
  LAND(5),
  BOR(6),
  BAND(7),
  LXOR(8),
  BXOR(9),
  ATOMIC_READ(10),
  ATOMIC_WRITE(11),
  CSWAP(12),
  CSWAP_NE(13),
  CSWAP_LE(14),
  CSWAP_LT(15),
  CSWAP_GE(16),
  CSWAP_GT(17),
  MSWAP(18);

  private static final FiOp[] BY_ID = values();

  private final int id;

  FiOp(int id) {
    this.id = id;
  }

  /** libfabric's enum number. */
  public int id() {
    return id;
  }

  /** libfabric's name, e.g. {@code FI_CSWAP_LE}. */
  public String fiName() {
    return "FI_" + name();
  }

  /** The compare family's ops: CSWAP .. MSWAP. */
  public boolean isCompareOp() {
    return id >= CSWAP.id;
  }

  /** The op by libfabric's enum number, or null. */
  public static FiOp ofId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** The op by libfabric's name ({@code FI_SUM}) or its short name ({@code SUM}), or null. */
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
