package dev.fiucx.perf.bench;

import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The names bench accepts for ops, datatypes and families: fabtests' spellings ({@code sum}, {@code
 * read}, {@code write}, {@code cswap_le}, {@code uint64}, {@code double_complex}), libfabric's
 * ({@code FI_SUM}, {@code FI_UINT64}) and the enum names, in any case, so a user of fi_rdm_atomic
 * can type what they already know.
 */
final class AtomicSpellings {
  private AtomicSpellings() {}

  /** The op named {@code name}, or null. */
  static FiOp op(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT);
    if (n.startsWith("FI_")) {
      n = n.substring(3);
    }
    // fabtests' fi_rdm_atomic calls the two data-movement ops "read" and "write"
    return switch (n) {
      case "READ" -> FiOp.ATOMIC_READ;
      case "WRITE" -> FiOp.ATOMIC_WRITE;
      default -> FiOp.ofName(n);
    };
  }

  /** The datatype named {@code name}, or null. */
  static FiDatatype datatype(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT);
    return FiDatatype.ofName(n.startsWith("FI_") ? n.substring(3) : n);
  }

  /** The family named {@code name} ({@code base}, {@code fetch}, {@code compare}), or null. */
  static AtomicFamily family(String name) {
    return AtomicFamily.ofLabel(name.trim().toLowerCase(Locale.ROOT));
  }

  /** picocli's converter for {@code -o/--op}. */
  static final class OpConverter implements ITypeConverter<FiOp> {
    @Override
    public FiOp convert(String value) {
      FiOp op = op(value);
      if (op == null) {
        throw new TypeConversionException(
            "unknown op '" + value + "' (e.g. sum, cswap_le, read, write, FI_SUM)");
      }
      return op;
    }
  }

  /** picocli's converter for {@code -z/--datatype}. */
  static final class DatatypeConverter implements ITypeConverter<FiDatatype> {
    @Override
    public FiDatatype convert(String value) {
      FiDatatype dt = datatype(value);
      if (dt == null) {
        throw new TypeConversionException(
            "unknown datatype '" + value + "' (e.g. int8, uint64, double_complex, FI_UINT64)");
      }
      return dt;
    }
  }

  /** picocli's converter for {@code --family}. */
  static final class FamilyConverter implements ITypeConverter<AtomicFamily> {
    @Override
    public AtomicFamily convert(String value) {
      AtomicFamily f = family(value);
      if (f == null) {
        throw new TypeConversionException(
            "unknown family '" + value + "' (base, fetch or compare)");
      }
      return f;
    }
  }
}
