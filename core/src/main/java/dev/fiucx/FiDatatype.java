package dev.fiucx;

/**
 * The element types of atomic operations: libfabric's {@code enum fi_datatype} (fi_atomic(3)), with
 * its enum numbers. Sizes are those of x86-64 Linux; {@link #LONG_DOUBLE} is the x87 80-bit
 * extended format stored in 16 bytes (10 significant, 6 padding).
 */
public enum FiDatatype {
  /** {@code FI_INT8}: C int8_t. */
  INT8(0, 1),
  /** {@code FI_UINT8}: C uint8_t. */
  UINT8(1, 1),
  /** {@code FI_INT16}: C int16_t. */
  INT16(2, 2),
  /** {@code FI_UINT16}: C uint16_t. */
  UINT16(3, 2),
  /** {@code FI_INT32}: C int32_t. */
  INT32(4, 4),
  /** {@code FI_UINT32}: C uint32_t. */
  UINT32(5, 4),
  /** {@code FI_INT64}: C int64_t. */
  INT64(6, 8),
  /** {@code FI_UINT64}: C uint64_t. */
  UINT64(7, 8),
  /** {@code FI_FLOAT}: C float. */
  FLOAT(8, 4),
  /** {@code FI_DOUBLE}: C double. */
  DOUBLE(9, 8),
  /** {@code FI_FLOAT_COMPLEX}: C float complex. */
  FLOAT_COMPLEX(10, 8),
  /** {@code FI_DOUBLE_COMPLEX}: C double complex. */
  DOUBLE_COMPLEX(11, 16),
  /** {@code FI_LONG_DOUBLE}: C long double (x87 80-bit, in 16 bytes). */
  LONG_DOUBLE(12, 16),
  /** {@code FI_LONG_DOUBLE_COMPLEX}: C long double complex. */
  LONG_DOUBLE_COMPLEX(13, 32);

  private static final FiDatatype[] BY_ID = values();

  private final int id;
  private final int size;

  FiDatatype(int id, int size) {
    this.id = id;
    this.size = size;
  }

  /** {@return libfabric's enum number} */
  public int id() {
    return id;
  }

  /** {@return bytes of one element in memory ({@code fi_atomic_attr.size})} */
  public int size() {
    return size;
  }

  /** {@return libfabric's name, e.g. {@code FI_UINT64}} */
  public String fiName() {
    return "FI_" + name();
  }

  /** {@return whether this is an integer type, INT8 .. UINT64} */
  public boolean isInteger() {
    return id <= UINT64.id;
  }

  /** {@return whether this is an unsigned integer type} */
  public boolean isUnsigned() {
    return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
  }

  /** {@return whether this is a complex type} */
  public boolean isComplex() {
    return this == FLOAT_COMPLEX || this == DOUBLE_COMPLEX || this == LONG_DOUBLE_COMPLEX;
  }

  /** {@return whether this is a real floating type: FLOAT, DOUBLE, LONG_DOUBLE} */
  public boolean isRealFloating() {
    return this == FLOAT || this == DOUBLE || this == LONG_DOUBLE;
  }

  /**
   * {@return the type by libfabric's enum number, or null}
   *
   * @param id libfabric's enum number
   */
  public static FiDatatype ofId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /**
   * {@return the type by libfabric's name ({@code FI_INT8}) or its short name ({@code INT8}), or
   * null}
   *
   * @param name e.g. {@code FI_INT8} or {@code INT8}
   */
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
