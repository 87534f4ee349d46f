package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.ExposedRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** allocate and register: sizes, alignment, zeroing, refusals. */
@RequiresUcx
class UcxMemoryTest {
  private static UcxTransport transport;

  @BeforeAll
  static void open() {
    transport =
        new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports("shm"));
  }

  @AfterAll
  static void close() {
    transport.close();
  }

  @Test
  void allocateRoundsUpToEightBytesAndZeroes() {
    for (long size : new long[] {1, 7, 8, 13, 4096, 4097}) {
      try (ExposedRegion r = transport.allocate(size, Memory.RW)) {
        MemorySegment s = r.segment();
        assertEquals((size + 7) / 8 * 8, s.byteSize(), "size for " + size);
        assertEquals(0, s.address() % 8, "aligned");
        for (long i = 0; i < s.byteSize(); i++) {
          assertEquals(0, s.get(JAVA_BYTE, i), "byte " + i + " of " + size);
        }
        s.fill((byte) 0x77); // dirty it for the next allocation, which must zero again
        assertEquals(Memory.RW, r.access());
      }
    }
  }

  @Test
  void registerExposesTheCallersBytes() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment mine = arena.allocate(24, 8);
      mine.set(JAVA_LONG, 8, 42);
      try (ExposedRegion r = transport.register(mine, Memory.RW)) {
        assertEquals(mine.address(), r.segment().address());
        assertEquals(24, r.segment().byteSize());
        assertEquals(42, r.segment().get(JAVA_LONG, 8), "registration leaves the bytes alone");
      }
    }
  }

  @Test
  void registerRefusesWhatCannotBeAddressedAsWords() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment aligned = arena.allocate(32, 8);
      assertEinval(() -> transport.register(aligned.asSlice(4, 16), Memory.RW)); // misaligned
      assertEinval(() -> transport.register(aligned.asSlice(0, 12), Memory.RW)); // size % 8
      assertEinval(() -> transport.register(aligned.asSlice(0, 0), Memory.RW)); // empty
      assertEinval(() -> transport.register(MemorySegment.ofArray(new long[4]), Memory.RW)); // heap
    }
    assertEinval(() -> transport.allocate(0, Memory.RW));
    assertEinval(() -> transport.allocate(-8, Memory.RW));
  }

  private static void assertEinval(org.junit.jupiter.api.function.Executable call) {
    FiException e = assertThrows(FiException.class, call);
    assertEquals(FiErrno.EINVAL, e.errno());
  }
}
