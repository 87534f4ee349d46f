package dev.fiucx.engine;

import dev.fiucx.FiErrno;
import dev.fiucx.FiException;
import dev.fiucx.spi.ProcessIdentity;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * A domain's address as {@code fi_getname} gives it and {@code fi_av_insert} takes it: a header of
 * fiucx's own around the transport's address, so that bytes which are not a fiucx address are
 * refused before the transport (UCX's {@code ucp_address_unpack}, which asserts on garbage) sees
 * them, and so that a peer knows the process it talks to.
 *
 * <pre>
 *  offset size  field (little-endian)
 *   0      4    magic "FIUX"
 *   4      2    format version (1)
 *   6      2    header length (64)
 *   8      4    total length, checksum included
 *  12      4    pid
 *  16      8    process start time (clock ticks after boot)
 *  24     16    boot id
 *  40      8    pid namespace inode
 *  48      8    key of the domain's lock region
 *  56      4    transport address length
 *  60      4    reserved, 0
 *  64      n    transport address
 *  64+n    4    CRC32C of bytes 0 .. 64+n
 * </pre>
 *
 * The checksum catches truncation, stray bytes and bit flips, not a hostile peer: a forged address
 * with a right checksum still reaches the transport (the ucx provider then walks the worker address
 * before UCX reads it).
 */
record DomainAddress(ProcessIdentity process, long lockKey, byte[] transportAddress) {
  static final int MAGIC = 0x58554946; // "FIUX" read little-endian
  static final int VERSION = 1;
  static final int HEADER_BYTES = 64;
  static final int CHECKSUM_BYTES = 4;

  /** No transport address is anywhere near this long (UCX's are hundreds of bytes). */
  static final int MAX_TRANSPORT_BYTES = 1 << 20;

  /** The bytes of {@code fi_getname}. */
  byte[] encode() {
    int total = HEADER_BYTES + transportAddress.length + CHECKSUM_BYTES;
    ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(MAGIC).putShort((short) VERSION).putShort((short) HEADER_BYTES).putInt(total);
    b.putInt(process.pid()).putLong(process.startTicks());
    b.order(ByteOrder.BIG_ENDIAN).putLong(process.bootIdHigh()).putLong(process.bootIdLow());
    b.order(ByteOrder.LITTLE_ENDIAN).putLong(process.pidNamespace()).putLong(lockKey);
    b.putInt(transportAddress.length).putInt(0).put(transportAddress);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, total - CHECKSUM_BYTES);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Checks every field of {@code bytes} and returns the address; throws {@link FiException} {@code
   * FI_EINVAL} saying what is wrong otherwise.
   */
  static DomainAddress decode(byte[] bytes) {
    if (bytes == null) {
      throw invalid("null");
    }
    if (bytes.length < HEADER_BYTES + CHECKSUM_BYTES) {
      throw invalid(bytes.length + " bytes, shorter than the header");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (b.getInt() != MAGIC) {
      throw invalid("no fiucx magic");
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version != VERSION) {
      throw invalid("format version " + version + "; this fiucx reads version " + VERSION);
    }
    int header = Short.toUnsignedInt(b.getShort());
    if (header != HEADER_BYTES) {
      throw invalid("header length " + header + ", expected " + HEADER_BYTES);
    }
    long total = Integer.toUnsignedLong(b.getInt());
    if (total != bytes.length) {
      throw invalid(
          bytes.length + " bytes, but the address says " + total + " (truncated or extended)");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - CHECKSUM_BYTES);
    int stored =
        ByteBuffer.wrap(bytes, bytes.length - CHECKSUM_BYTES, CHECKSUM_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN)
            .getInt();
    if (stored != (int) crc.getValue()) {
      throw invalid("checksum mismatch (corrupted)");
    }
    int pid = b.getInt();
    long start = b.getLong();
    b.order(ByteOrder.BIG_ENDIAN);
    long bootHigh = b.getLong();
    long bootLow = b.getLong();
    b.order(ByteOrder.LITTLE_ENDIAN);
    long pidNamespace = b.getLong();
    long lockKey = b.getLong();
    long transportLength = Integer.toUnsignedLong(b.getInt());
    int reserved = b.getInt();
    if (reserved != 0) {
      throw invalid("reserved field is not 0");
    }
    if (transportLength == 0
        || transportLength > MAX_TRANSPORT_BYTES
        || transportLength != total - HEADER_BYTES - CHECKSUM_BYTES) {
      throw invalid("transport address length " + transportLength + " does not fit " + total);
    }
    byte[] transport = new byte[(int) transportLength];
    b.get(transport);
    return new DomainAddress(
        new ProcessIdentity(pid, start, bootHigh, bootLow, pidNamespace), lockKey, transport);
  }

  private static FiException invalid(String why) {
    return new FiException(
        FiErrno.EINVAL, "not a fiucx address (fi_getname of an endpoint): " + why);
  }
}
