package dev.fiucx.emulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WordLaneTest {
  @Test
  void smallElementsLiveInTheirAlignedFourByteWord() {
    assertEquals(4, WordLane.wordSize(1));
    assertEquals(4, WordLane.wordSize(2));
    assertEquals(4, WordLane.wordSize(4));
    assertEquals(8, WordLane.wordSize(8));
    assertEquals(4092, WordLane.wordOffset(4095, 1));
    assertEquals(24, WordLane.shift(4095, 1));
    assertEquals(4092, WordLane.wordOffset(4094, 2));
    assertEquals(16, WordLane.shift(4094, 2));
    assertEquals(12, WordLane.wordOffset(12, 4));
    assertEquals(0, WordLane.shift(12, 4));
    assertEquals(8, WordLane.wordOffset(8, 8));
  }

  @Test
  void splicingReplacesOneLaneOnly() {
    long word = 0xDDCCBBAAL;
    assertEquals(0xDD11BBAAL, WordLane.splice(word, 16, 0xFF, 0x11));
    assertEquals(0xBEEFBBAAL, WordLane.splice(word, 16, 0xFFFF, 0xBEEF));
    assertEquals(0xCC, WordLane.extract(word, 16, 0xFF));
    assertEquals(0xDDCC, WordLane.extract(word, 16, 0xFFFF));
    assertEquals(-2L, WordLane.splice(7, 0, -1L, -2L));
    assertEquals(0xFFL, WordLane.mask(1));
    assertEquals(0xFFFFFFFFL, WordLane.mask(4));
  }
}
