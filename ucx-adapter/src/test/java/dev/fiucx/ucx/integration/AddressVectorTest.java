package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fiucx.AddressVector;
import dev.fiucx.Domain;
import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.FiFlags;
import dev.fiucx.FiOp;
import dev.fiucx.MemoryRegion;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.suite.RequiresProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code fi_av_insert} of what is not a fiucx address never reaches UCX (whose address parser
 * asserts on garbage: random bytes used to abort the process); the address vector refuses calls
 * once closed and removals of what it does not hold; and after all of it the same domain still
 * works.
 */
@RequiresProvider("ucx")
class AddressVectorTest {
  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void whatIsNotAFiucxAddressIsRefusedBeforeUcxSeesIt(String transport) {
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        Initiator ini = new Initiator("ucx", Initiator.manual(transport));
        Arena arena = Arena.ofConfined()) {
      MemoryRegion mr = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      byte[] address = target.openEndpoint().name();

      for (int seed = 0; seed < 3000; seed++) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[random.nextInt(0, 2 * address.length)];
        random.nextBytes(bytes);
        if (seed % 3 == 1) { // fiucx's magic and more of a real header, then garbage
          System.arraycopy(address, 0, bytes, 0, Math.min(bytes.length, random.nextInt(4, 64)));
        }
        assertRefused(ini.av, bytes, FiErrno.EINVAL, "seed " + seed);
      }
      for (int n = 0; n < address.length; n++) {
        assertRefused(ini.av, Arrays.copyOf(address, n), FiErrno.EINVAL, "truncated to " + n);
      }
      assertRefused(ini.av, Arrays.copyOf(address, address.length + 1), FiErrno.EINVAL, "+1");
      for (int bit = 0; bit < address.length * 8; bit += 7) {
        byte[] flipped = address.clone();
        flipped[bit / 8] ^= (byte) (1 << (bit % 8));
        assertRefused(ini.av, flipped, FiErrno.EINVAL, "bit " + bit);
      }
      byte[] otherVersion = address.clone();
      otherVersion[4] = 2;
      reseal(otherVersion);
      assertRefused(ini.av, otherVersion, FiErrno.EINVAL, "version 2");
      assertRefused(ini.av, null, FiErrno.EINVAL, "null");

      // nothing above took an fi_addr or broke the domain: the first real insert is 0, and works
      long peer = ini.av.insert(address);
      assertEquals(0, peer);
      MemorySegment two = arena.allocate(8, 8);
      two.set(ValueLayout.JAVA_LONG, 0, 2);
      MemorySegment result = arena.allocate(8, 8);
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              two, 1, null, result, null, peer, 0, mr.key(), FiDatatype.UINT64, FiOp.SUM, "ok"));
      assertEquals("ok", ini.awaitCompletion());
      assertEquals(2, mr.segment().get(ValueLayout.JAVA_LONG, 0));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"shm", "tcp"})
  void removedUnknownAndClosedAreRefused(String transport) {
    try (Domain target =
            Fabric.openDomain(
                "ucx", new DomainAttr(transport, DomainAttr.Progress.AUTO, false, Map.of()));
        Initiator ini = new Initiator("ucx", Initiator.manual(transport));
        Arena arena = Arena.ofConfined()) {
      MemoryRegion mr = target.allocateMemory(64, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE);
      byte[] address = target.openEndpoint().name();
      MemorySegment one = arena.allocate(8, 8);
      one.set(ValueLayout.JAVA_LONG, 0, 1);
      MemorySegment result = arena.allocate(8, 8);

      long first = ini.av.insert(address);
      long second = ini.av.insert(address);
      assertEquals(1, second);
      ini.av.remove(first);
      for (long fiAddr : new long[] {first, 2, -1, Long.MAX_VALUE, Long.MIN_VALUE}) {
        FiException e = assertThrows(FiException.class, () -> ini.av.remove(fiAddr));
        assertEquals(FiErrno.EINVAL, e.errno(), "remove " + fiAddr);
        assertEquals(
            -FiErrno.EADDRNOTAVAIL,
            ini.ep.fetchAtomic(
                one, 1, null, result, null, fiAddr, 0, mr.key(), FiDatatype.UINT64, FiOp.SUM, null),
            "post to " + fiAddr);
      }
      assertEquals(
          0,
          ini.ep.fetchAtomic(
              one,
              1,
              null,
              result,
              null,
              second,
              0,
              mr.key(),
              FiDatatype.UINT64,
              FiOp.SUM,
              "second"));
      assertEquals("second", ini.awaitCompletion());
      assertEquals(2, ini.av.insert(address), "fi_addrs are not reused");

      AddressVector other = ini.domain.openAddressVector();
      other.insert(address);
      other.close();
      other.close(); // twice is harmless
      FiException insert = assertThrows(FiException.class, () -> other.insert(address));
      assertEquals(FiErrno.EOPBADSTATE, insert.errno());
      FiException remove = assertThrows(FiException.class, () -> other.remove(0));
      assertEquals(FiErrno.EOPBADSTATE, remove.errno());
    }
  }

  private static void assertRefused(AddressVector av, byte[] bytes, int errno, String what) {
    FiException e = assertThrows(FiException.class, () -> av.insert(bytes), what);
    assertEquals(errno, e.errno(), what + ": " + e.getMessage());
  }

  /** Writes the checksum that fits the bytes before it (fiucx's address ends in a CRC32C). */
  private static void reseal(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(bytes.length - 4, (int) crc.getValue());
  }
}
