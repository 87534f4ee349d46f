package dev.fiucx;

/**
 * The element types of atomic operations: libfabric's {@code enum fi_datatype} (fi_atomic(3)), with
 * its enum numbers. Sizes are those of x86-64 Linux; {@link #LONG_DOUBLE} is the x87 80-bit
 * extended format stored in 16 bytes (10 significant, 6 padding).
 */
public enum FiDatatype {
  INT8(0, 1),
  UINT8(1, 1),
  INT16(2, 2),
  UINT16(3, 2),
  INT32(4, 4),
  UINT32(5, 4),
  INT64(6, 8),
  UINT64(7, 8),
  FLOAT(8, 4),
  DOUBLE(9, 8),
  FLOAT_COMPLEX(10, 8),
  DOUBLE_COMPLEX(11, 16),
  LONG_DOUBLE(12, 16),
  LONG_DOUBLE_COMPLEX(13, 32);

  private static final FiDatatype[] BY_ID = values();

  private final int id;
  private final int size;

  FiDatatype(int id, int size) {
    this.id = id;
    this.size = size;
  }

  /** libfabric's enum number. */
  public int id() {
    return id;
  }

  /** Bytes of one element in memory ({@code fi_atomic_attr.size}). */
  public int size() {
    return size;
  }

  /** libfabric's name, e.g. {@code FI_UINT64}. */
  public String fiName() {
    return "FI_" + name();
  }

  public boolean isInteger() {
    return id <= UINT64.id;
  }

  public boolean isUnsigned() {
    return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
  }

  public boolean isComplex() {
    return this == FLOAT_COMPLEX || this == DOUBLE_COMPLEX || this == LONG_DOUBLE_COMPLEX;
  }

  /** Real floating types: FLOAT, DOUBLE, LONG_DOUBLE. */
  public boolean isRealFloating() {
    return this == FLOAT || this == DOUBLE || this == LONG_DOUBLE;
  }

  /** The type by libfabric's enum number, or null. */
  public static FiDatatype ofId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** The type by libfabric's name ({@code FI_INT8}) or its short name ({@code INT8}), or null. */
  public static FiDatatype ofName(String name) {
    String n = name.startsWith("FI_") ? name.substring(3) : name;
    for (FiDatatype d : BY_ID) {
      if (d.name().equals(n)) {
        return d;
      }
    }
    return null;
  }
}
