package dev.fiucx.emulation;

import dev.fiucx.semantics.ElementSemantics;
import java.lang.foreign.MemorySegment;

/**
 * Writes an element's old value to the caller's result buffer from whichever thread finishes the
 * element: through the buffer itself where this thread may access it (every access then checks that
 * its arena is still open), else (a buffer confined to the posting thread, finished by the progress
 * thread) to the same bytes by address, as UCX writes its own results, once its arena was seen
 * open. A buffer whose arena closed before its operation completed (libfabric's rule: buffers live
 * until their completion) is not written, and the element ends with {@code -FI_EINVAL}.
 */
final class ResultBuffers {
  @SuppressWarnings("restricted")
  private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

  private ResultBuffers() {}

  /**
   * Stores the low {@code size} bytes of {@code bits} at {@code result[offset]}; false if freed.
   */
  static boolean store(MemorySegment result, long offset, int size, long bits) {
    try {
      if (result.isAccessibleBy(Thread.currentThread())) {
        ElementSemantics.store(result, offset, size, bits);
      } else if (result.scope().isAlive()) {
        ElementSemantics.store(ALL, result.address() + offset, size, bits);
      } else {
        return false;
      }
      return true;
    } catch (RuntimeException closed) { // its arena closed meanwhile
      return false;
    }
  }

  /**
   * Copies {@code size} bytes from {@code src[srcOffset]} to {@code result[offset]}; false if
   * freed.
   */
  static boolean copy(
      MemorySegment src, long srcOffset, MemorySegment result, long offset, int size) {
    try {
      if (result.isAccessibleBy(Thread.currentThread())) {
        ElementSemantics.copy(src, srcOffset, result, offset, size);
      } else if (result.scope().isAlive()) {
        ElementSemantics.copy(src, srcOffset, ALL, result.address() + offset, size);
      } else {
        return false;
      }
      return true;
    } catch (RuntimeException closed) {
      return false;
    }
  }
}
