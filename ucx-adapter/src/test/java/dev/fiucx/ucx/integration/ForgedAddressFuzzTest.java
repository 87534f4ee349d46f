package dev.fiucx.ucx.integration;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.fiucx.DomainAttr;
import dev.fiucx.FiException;
import dev.fiucx.conformance.remote.Initiator;
import dev.fiucx.conformance.remote.LocalTarget;
import dev.fiucx.conformance.suite.RequiresProvider;
import dev.fiucx.engine.EngineDomain;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@code av.insert} of forged addresses: fiucx's header and checksum right (taken from a real
 * target's address), the ucx transport address inside anything: the whole of it, or the data or the
 * control worker address inside its framing (one format byte, then each address after a 16-bit
 * length), as random bytes, or the real one with bytes flipped, cut short or lengthened. Each
 * insert either gives a handle (removed again) or throws FiException; none aborts the process in
 * UCX's address parser, which asserts on what it cannot read and trusts every length and index (a
 * version byte of 8 aborted the JVM before fiucx walked the address itself). CI replays the inputs
 * under {@code ForgedAddressFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes for the test's duration.
 */
@RequiresProvider("ucx")
class ForgedAddressFuzzTest {
  private static LocalTarget target;
  private static Initiator initiator;
  private static byte[] header;
  private static byte[] transport;
  private static byte[] dataWorker;
  private static byte[] controlWorker;
  private static long inserted;
  private static long refused;

  @BeforeAll
  static void open() {
    target = new LocalTarget("ucx", "shm", 64);
    initiator = new Initiator("ucx", "shm", DomainAttr.Progress.MANUAL);
    byte[] real = target.address();
    header = Arrays.copyOf(real, 64);
    transport = EngineDomain.transportAddressOf(real);
    int dataLength = length(transport, 1);
    dataWorker = Arrays.copyOfRange(transport, 3, 3 + dataLength);
    controlWorker =
        Arrays.copyOfRange(transport, 3 + dataLength + 2, transport.length); // shm: there is one
  }

  @AfterAll
  static void close() {
    System.out.printf("ForgedAddressFuzzTest: %d inserted, %d refused%n", inserted, refused);
    initiator.close();
    target.close();
  }

  @FuzzTest(maxDuration = "120s")
  void aForgedAddressIsRefusedOrInsertedNeverACrash(FuzzedDataProvider data) {
    byte[] inside =
        switch (data.consumeInt(0, 2)) {
          case 0 -> forged(data, transport);
          case 1 -> framed(forged(data, dataWorker), controlWorker);
          default -> framed(dataWorker, forged(data, controlWorker));
        };
    long handle;
    try {
      handle = initiator.av.insert(wrapped(inside));
    } catch (FiException e) {
      refused++;
      return;
    }
    assertTrue(handle >= 0, "handle " + handle);
    inserted++;
    initiator.av.remove(handle);
  }

  /** Random bytes, or {@code real} cut short, lengthened or with bytes flipped. */
  private static byte[] forged(FuzzedDataProvider data, byte[] real) {
    return switch (data.consumeInt(0, 3)) {
      case 0 -> data.consumeBytes(data.consumeInt(0, 300));
      case 1 -> Arrays.copyOf(real, data.consumeInt(0, real.length - 1));
      case 2 -> {
        byte[] longer = Arrays.copyOf(real, real.length + data.consumeInt(1, 32));
        byte[] tail = data.consumeBytes(longer.length - real.length);
        System.arraycopy(tail, 0, longer, real.length, tail.length);
        yield longer;
      }
      default -> {
        byte[] flipped = real.clone();
        int flips = data.consumeInt(1, 4);
        for (int i = 0; i < flips; i++) {
          flipped[data.consumeInt(0, flipped.length - 1)] ^= (byte) data.consumeInt(1, 255);
        }
        yield flipped;
      }
    };
  }

  /**
   * Two worker addresses in the ucx provider's framing (its UcxAddress): format byte 0xf1, then
   * each address after its little-endian 16-bit length (0: no control worker).
   */
  private static byte[] framed(byte[] data, byte[] control) {
    ByteBuffer b =
        ByteBuffer.allocate(1 + 2 + data.length + 2 + control.length)
            .order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0xf1).putShort((short) data.length).put(data);
    b.putShort((short) control.length).put(control);
    return b.array();
  }

  private static int length(byte[] a, int at) {
    return (a[at] & 0xff) | (a[at + 1] & 0xff) << 8;
  }

  /**
   * {@code inside} as the transport address of a fiucx address with the real header, checksum
   * right.
   */
  private static byte[] wrapped(byte[] inside) {
    int total = 64 + inside.length + 4;
    ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    b.put(header).putInt(8, total).putInt(56, inside.length).position(64);
    b.put(inside);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, total - 4);
    b.putInt((int) crc.getValue());
    return b.array();
  }
}
