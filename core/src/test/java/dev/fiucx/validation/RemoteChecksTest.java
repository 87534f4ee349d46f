package dev.fiucx.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiErrno;
import dev.fiucx.FiFlags;
import dev.fiucx.spi.RemoteRegion;
import org.junit.jupiter.api.Test;

class RemoteChecksTest {
  /** A resolved region as a transport would describe it: 64 bytes at 0x1000, read-only. */
  private record Region(long base, long length, long access, boolean revoked)
      implements RemoteRegion {
    @Override
    public String path() {
      return "fake";
    }
  }

  private static final long RW = FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE;
  private static final Region READ_ONLY = new Region(0x1000, 64, FiFlags.REMOTE_READ, false);
  private static final Region WRITABLE = new Region(0x1000, 64, RW, false);

  @Test
  void aRangeInsideTheRegionWithTheRightAccessPasses() {
    assertEquals(0, RemoteChecks.range(WRITABLE, 0, 64, 8, RW));
    assertEquals(0, RemoteChecks.range(WRITABLE, 56, 8, 8, RW));
    assertEquals(0, RemoteChecks.range(READ_ONLY, 8, 8, 8, FiFlags.REMOTE_READ));
  }

  @Test
  void rangesLeavingTheRegionAreFaults() {
    assertEquals(-FiErrno.EFAULT, RemoteChecks.range(WRITABLE, 64, 8, 8, RW));
    assertEquals(-FiErrno.EFAULT, RemoteChecks.range(WRITABLE, 60, 8, 4, RW), "straddles the end");
    assertEquals(-FiErrno.EFAULT, RemoteChecks.range(WRITABLE, -8, 8, 8, RW));
    assertEquals(-FiErrno.EFAULT, RemoteChecks.range(WRITABLE, 8, Long.MAX_VALUE, 8, RW));
    assertEquals(-FiErrno.EFAULT, RemoteChecks.range(WRITABLE, Long.MAX_VALUE, 8, 8, RW));
  }

  @Test
  void misalignedAddressesAreInvalid() {
    assertEquals(-FiErrno.EINVAL, RemoteChecks.range(WRITABLE, 4, 8, 8, RW));
    assertEquals(-FiErrno.EINVAL, RemoteChecks.range(WRITABLE, 2, 4, 4, RW));
    assertEquals(0, RemoteChecks.range(WRITABLE, 3, 1, 1, RW));
  }

  @Test
  void accessAndRevocationComeBeforeBounds() {
    assertEquals(-FiErrno.EACCES, RemoteChecks.range(READ_ONLY, 0, 8, 8, RW));
    assertEquals(-FiErrno.EACCES, RemoteChecks.range(READ_ONLY, 1000, 8, 8, RW));
    Region revoked = new Region(0x1000, 64, RW, true);
    assertEquals(-FiErrno.EKEYREJECTED, RemoteChecks.range(revoked, 0, 8, 8, RW));
  }

  @Test
  void accessFollowsTheFamilyAndOp() {
    assertEquals(FiFlags.REMOTE_WRITE, RemoteChecks.accessFor(false, false));
    assertEquals(RW, RemoteChecks.accessFor(true, false));
    assertEquals(FiFlags.REMOTE_READ, RemoteChecks.accessFor(true, true));
  }

  @Test
  void theBoundAndAlignmentRulesOverPlainValues() {
    assertEquals(true, RemoteChecks.inBounds(56, 8, 64));
    assertEquals(false, RemoteChecks.inBounds(57, 8, 64));
    assertEquals(false, RemoteChecks.inBounds(-1, 8, 64));
    assertEquals(false, RemoteChecks.inBounds(8, -1, 64));
    assertEquals(false, RemoteChecks.inBounds(Long.MAX_VALUE, 8, 64), "no overflow");
    assertEquals(true, RemoteChecks.aligned(0x1010, 16));
    assertEquals(false, RemoteChecks.aligned(0x1008, 16));
    assertEquals(true, RemoteChecks.aligned(0x1003, 1));
  }
}
