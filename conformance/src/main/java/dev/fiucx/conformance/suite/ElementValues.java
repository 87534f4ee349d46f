package dev.fiucx.conformance.suite;

import dev.fiucx.FiDatatype;
import dev.fiucx.semantics.LongDouble;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The element images the suite feeds each datatype: the edges where implementations differ
 * (wrap-around, signed against unsigned, signed zeros, infinities, NaNs with payloads, signalling
 * NaNs, denormals, x87 encodings the FPU refuses) and seeded random values. Each image is one
 * element's raw little-endian bytes, {@code datatype.size()} long.
 */
final class ElementValues {
  private ElementValues() {}

  /** The edge values of {@code dt}, each {@code dt.size()} bytes. */
  static List<byte[]> edges(FiDatatype dt) {
    return switch (dt) {
      case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 -> integerEdges(dt.size());
      case FLOAT -> floats(FLOAT_EDGES);
      case DOUBLE -> doubles(DOUBLE_EDGES);
      case FLOAT_COMPLEX -> pairs(floats(FLOAT_EDGES));
      case DOUBLE_COMPLEX -> pairs(doubles(DOUBLE_EDGES));
      case LONG_DOUBLE -> longDoubles();
      case LONG_DOUBLE_COMPLEX -> pairs(longDoubles());
    };
  }

  /** A random value of {@code dt}: random bits half the time, small exact numbers otherwise. */
  static byte[] random(FiDatatype dt, Random rnd) {
    if (dt.isInteger()) {
      byte[] b = new byte[dt.size()];
      rnd.nextBytes(b);
      return b;
    }
    int parts = dt.isComplex() ? 2 : 1;
    int partSize = dt.size() / parts;
    ByteBuffer out = ByteBuffer.allocate(dt.size()).order(ByteOrder.LITTLE_ENDIAN);
    for (int p = 0; p < parts; p++) {
      double small = (rnd.nextInt(401) - 200) / 8.0;
      boolean bits = rnd.nextBoolean();
      switch (partSize) {
        case 4 -> out.putInt(bits ? rnd.nextInt() : Float.floatToRawIntBits((float) small));
        case 8 -> out.putLong(bits ? rnd.nextLong() : Double.doubleToRawLongBits(small));
        default -> out.put(longDouble(bits ? LongDouble.of(rnd.nextDouble() * 1e6) : of(small)));
      }
    }
    return out.array();
  }

  private static List<byte[]> integerEdges(int size) {
    long[] patterns = {
      0L,
      1L,
      2L,
      -1L, // all ones: -1 signed, the maximum unsigned
      -2L,
      0x8080_8080_8080_8080L, // sign bit of every byte: the most negative value at every size
      0x7F7F_7F7F_7F7F_7F7FL,
      0x5555_5555_5555_5555L,
      0xAAAA_AAAA_AAAA_AAAAL,
      0x0123_4567_89AB_CDEFL
    };
    List<byte[]> out = new ArrayList<>();
    for (long p : patterns) {
      out.add(littleEndian(p, size));
    }
    // the exact signed minimum and maximum of this size
    long min = 1L << (size * 8 - 1);
    out.add(littleEndian(min, size));
    out.add(littleEndian(min - 1, size));
    return out;
  }

  private static final int[] FLOAT_EDGES = {
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x4020_0000, // 2.5
    0x3F80_0001, // 1 + ulp
    0x3300_0000, // 2^-25: vanishes against 1, rounds half to even
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // quiet NaN
    0xFFC1_2345, // negative quiet NaN with a payload
    0x7FA0_0001, // signalling NaN
    0x0000_0001, // smallest denormal
    0x807F_FFFF, // largest negative denormal
    0x7F7F_FFFF // largest finite
  };

  private static final long[] DOUBLE_EDGES = {
    0L,
    0x8000_0000_0000_0000L,
    0x3FF0_0000_0000_0000L,
    0xBFF0_0000_0000_0000L,
    0x4004_0000_0000_0000L,
    0x3FF0_0000_0000_0001L,
    0x3CA0_0000_0000_0000L, // 2^-53
    0x7FF0_0000_0000_0000L,
    0xFFF0_0000_0000_0000L,
    0x7FF8_0000_0000_0000L,
    0xFFF8_0000_0001_2345L,
    0x7FF4_0000_0000_0001L,
    0x0000_0000_0000_0001L,
    0x800F_FFFF_FFFF_FFFFL,
    0x7FEF_FFFF_FFFF_FFFFL
  };

  private static List<byte[]> floats(int[] bits) {
    List<byte[]> out = new ArrayList<>();
    for (int b : bits) {
      out.add(littleEndian(b & 0xFFFF_FFFFL, 4));
    }
    return out;
  }

  private static List<byte[]> doubles(long[] bits) {
    List<byte[]> out = new ArrayList<>();
    for (long b : bits) {
      out.add(littleEndian(b, 8));
    }
    return out;
  }

  private static List<byte[]> longDoubles() {
    long intBit = 0x8000_0000_0000_0000L;
    LongDouble[] values = {
      LongDouble.ZERO,
      LongDouble.ZERO.negate(),
      LongDouble.ONE,
      LongDouble.ONE.negate(),
      of(2.5),
      new LongDouble(0x3FFF, intBit | 1), // 1 + ulp
      new LongDouble(0x3FFF - 64, intBit), // 2^-64: half an ulp of 1
      LongDouble.POSITIVE_INFINITY,
      LongDouble.POSITIVE_INFINITY.negate(),
      new LongDouble(0x7FFF, 0xC000_0000_0000_0000L), // quiet NaN
      new LongDouble(0xFFFF, 0xC000_0000_0001_2345L), // negative quiet NaN with a payload
      new LongDouble(0x7FFF, 0xA000_0000_0000_0001L), // signalling NaN
      new LongDouble(0, 1), // smallest denormal
      new LongDouble(0x7FFE, -1L), // largest finite
      new LongDouble(0x3FFF, 0x4000_0000_0000_0000L) // unnormal: no integer bit, x87 refuses it
    };
    List<byte[]> out = new ArrayList<>();
    for (LongDouble v : values) {
      out.add(longDouble(v));
    }
    return out;
  }

  private static LongDouble of(double d) {
    return LongDouble.of(d);
  }

  private static byte[] longDouble(LongDouble v) {
    byte[] b = new byte[16];
    v.write(MemorySegment.ofArray(b), 0);
    return b;
  }

  /**
   * Complex edges: each real edge with a zero imaginary part, each imaginary edge with a zero real
   * part, and the diagonal (both parts the same edge).
   */
  private static List<byte[]> pairs(List<byte[]> parts) {
    byte[] zero = parts.get(0);
    List<byte[]> out = new ArrayList<>();
    for (byte[] p : parts) {
      out.add(concat(p, zero));
    }
    for (byte[] p : parts.subList(1, parts.size())) {
      out.add(concat(zero, p));
      out.add(concat(p, p));
    }
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** The low {@code size} bytes of {@code v}, least significant first. */
  static byte[] littleEndian(long v, int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (v >>> (8 * i));
    }
    return b;
  }
}
