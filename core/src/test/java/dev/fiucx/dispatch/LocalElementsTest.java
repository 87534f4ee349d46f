package dev.fiucx.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.fiucx.FiErrno;
import dev.fiucx.Ioc;
import dev.fiucx.dispatch.LocalElements.Need;
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
}
