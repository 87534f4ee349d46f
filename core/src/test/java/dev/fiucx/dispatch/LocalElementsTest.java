package dev.fiucx.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import dev.fiucx.Ioc;
import dev.fiucx.validation.LocalChecks;
import dev.fiucx.validation.LocalChecks.Need;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class LocalElementsTest {
  @Test
  void aWalkVisitsEveryElementOfEveryIovInOrder() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = arena.allocate(16);
      MemorySegment b = arena.allocate(24);
      LocalElements e = new LocalElements();
      assertEquals(0, e.set(new Ioc[] {new Ioc(a, 2), new Ioc(b, 0), new Ioc(b, 3)}, 3));
      assertEquals(5, e.check(8, Need.NATIVE));
      e.rewind(8);
      long[] expected = {
        a.address(), a.address() + 8, b.address(), b.address() + 8, b.address() + 16
      };
      for (long address : expected) {
        e.next();
        assertEquals(address, e.address());
      }
      e.rewind(8);
      e.next();
      assertSame(a, e.segment);
    }
  }

  @Test
  void shortMissingOrHeapBuffersAreInvalidWhereTheyMatter() {
    LocalElements e = new LocalElements();
    MemorySegment heap = MemorySegment.ofArray(new long[4]);
    e.set(heap, 4);
    assertEquals(4, e.check(8, Need.READABLE));
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.NATIVE));
    e.set(heap, 5);
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.READABLE));
    e.set((MemorySegment) null, 3);
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.READABLE));
    assertEquals(3, e.check(8, Need.COUNT_ONLY));
    e.set(heap, -1);
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.COUNT_ONLY));
    assertEquals(-FiErrno.EINVAL, e.set(new Ioc[17], 17));
    assertEquals(-FiErrno.EINVAL, e.set(new Ioc[] {null}, 1));
  }

  @Test
  void freedForeignAndReadOnlyBuffersAreInvalidBeforeAnythingReadsThem() throws Exception {
    LocalElements e = new LocalElements();
    Arena closed = Arena.ofConfined();
    MemorySegment freed = closed.allocate(16);
    closed.close();
    e.set(freed, 1);
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.READABLE));
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.NATIVE));
    assertEquals(1, e.check(8, Need.COUNT_ONLY)); // ATOMIC_READ never touches its operand

    MemorySegment[] foreign = new MemorySegment[1];
    Arena[] foreignArena = new Arena[1];
    Thread other =
        new Thread(
            () -> {
              foreignArena[0] = Arena.ofConfined();
              foreign[0] = foreignArena[0].allocate(16);
            });
    other.start();
    other.join();
    e.set(foreign[0], 1);
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.READABLE));
    assertEquals(-FiErrno.EINVAL, e.check(8, Need.NATIVE));

    try (Arena arena = Arena.ofConfined()) {
      MemorySegment view = arena.allocate(16).asReadOnly();
      e.set(view, 2);
      assertEquals(2, e.check(8, Need.READABLE)); // operands may be read-only
      assertEquals(-FiErrno.EINVAL, e.check(8, Need.NATIVE)); // results may not
      assertFalse(LocalChecks.writable(view, 8, Thread.currentThread()));
      assertTrue(LocalChecks.readable(view, 8, Thread.currentThread()));
      assertFalse(LocalChecks.readable(view, 17, Thread.currentThread()));
      assertFalse(LocalChecks.readable(null, 8, Thread.currentThread()));
      assertFalse(LocalChecks.writable(freed, 8, Thread.currentThread()));
      assertFalse(LocalChecks.readable(foreign[0], 8, Thread.currentThread()));
    }
  }

  @Test
  void countsThatAddUpBeyondALongSaturate() {
    LocalElements e = new LocalElements();
    Ioc[] huge = {new Ioc(null, Long.MAX_VALUE), new Ioc(null, Long.MAX_VALUE), new Ioc(null, 2)};
    assertEquals(0, e.set(huge, 3));
    assertEquals(Long.MAX_VALUE, e.check(8, Need.COUNT_ONLY));
    assertEquals(-FiErrno.EINVAL, e.set(new Ioc[1], 2)); // shorter than its count
    assertEquals(-FiErrno.EINVAL, e.set(new Ioc[1], -1));
  }
}
