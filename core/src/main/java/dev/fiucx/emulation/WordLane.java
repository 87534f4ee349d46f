package dev.fiucx.emulation;

/**
 * Where an element lives in the word the CAS loop works on. Remote atomics come in 4 and 8 bytes
 * only, so a 1- or 2-byte element is read and swapped as its aligned 4-byte word, in the lane its
 * offset names (little-endian: byte 0 of the word is bits 0-7); 4- and 8-byte elements are their
 * own word. Regions are 8-byte aligned and padded to 8, so the word of any element of a region lies
 * inside it; alignment checks keep a 2-byte element from straddling two words.
 */
final class WordLane {
  private WordLane() {}

  /** Bytes of the word an element of {@code size} bytes is swapped in. */
  static int wordSize(int size) {
    return size <= 4 ? 4 : 8;
  }

  /** The word's offset in the region. */
  static long wordOffset(long elementOffset, int size) {
    return size < 4 ? elementOffset & ~3L : elementOffset;
  }

  /** How far the element's bits are shifted up in its word. */
  static int shift(long elementOffset, int size) {
    return size < 4 ? (int) (elementOffset & 3) << 3 : 0;
  }

  /** All ones in the element's bits (not shifted). */
  static long mask(int size) {
    return size == 8 ? -1L : (1L << (size << 3)) - 1;
  }

  /** The element's bits, zero-extended. */
  static long extract(long word, int shift, long mask) {
    return (word >>> shift) & mask;
  }

  /** The word with the element's bits replaced by {@code bits}; the other lanes untouched. */
  static long splice(long word, int shift, long mask, long bits) {
    return (word & ~(mask << shift)) | ((bits & mask) << shift);
  }
}
