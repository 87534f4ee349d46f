package dev.fiucx.ucx;

/**
 * Walks a UCX worker address the way {@code ucp_address_unpack} reads it (src/ucp/wireup/address.c,
 * for {@code ucp_ep_create} from a worker address, not unified mode), before UCX sees a byte of it:
 * the header's version and flags, the worker UUID, client id and name, then each device (its md
 * index, length byte with its flags, paths and system device, address) and each interface on it
 * (transport-name checksum, packed attributes, address, endpoint addresses). UCX trusts every
 * length and index in there: a bad version byte is an assertion that aborts the process, a length
 * past the end is a read past the buffer, and a device or md index beyond its arrays (128 devices,
 * 64 memory domains) a write past a stack array. So an address from an {@code av.insert} whose
 * fiucx header and checksum are right (a forged one: the checksum catches only corruption) is
 * refused here unless every record fits, every index is in range and every bandwidth is a positive
 * number.
 *
 * <p>The records are laid out alike from UCX 1.13 to 1.23; what the series read differently is in
 * {@link Format}: how many endpoint addresses an interface may carry, and what of a v1 md byte is
 * the index. A v1 address of 1.16 and later ends in an empty device whose md index is the packer's
 * release (mod 16), and a v2 header carries it in its upper 4 bits: both walk like any other byte.
 *
 * <p>A peer's transport address carries two worker addresses in fiucx's own framing ({@link
 * UcxAddress}): {@link #problem} reads the framing and walks both, so neither reaches UCX unwalked.
 *
 * <p>What it cannot judge is what the records say: an interface address of a transport this worker
 * also has goes to that transport (an address is trusted input, as in UCX).
 */
final class UcxWorkerAddress {
  /**
   * One UCX series' worker address format, as far as the walk needs it.
   *
   * @param series the first series that reads addresses this way
   * @param maxLanes {@code UCP_MAX_LANES}: endpoint addresses one interface may carry
   * @param mdMaskV1 the bits of a v1 address's md byte that UCX reads as the md index: up to 1.18
   *     the two above the low five are the md's alloc and reg flags, which 1.19 stopped packing and
   *     reads as index bits, unless the address is from a release that still packed them
   * @param legacyReleases from 1.19, the releases (as the 4 bits an address carries, release mod
   *     16; bit n for n) whose v1 md bytes UCX reads without the alloc and reg flags; an address
   *     that carries no release (one of 1.15 or older) is read so too
   */
  record Format(String series, int maxLanes, int mdMaskV1, int legacyReleases) {
    static final Format V1_13 = new Format("1.13", 6, 0x1f, 0);
    static final Format V1_14 = new Format("1.14", 16, 0x1f, 0);
    static final Format V1_18 = new Format("1.18", 64, 0x1f, 0);

    /**
     * From 1.19, 7 bits of a v1 md byte are the index. UCX takes an address's 4-bit release for the
     * release nearest its own minor, so which of them read as 1.18 or older depends on the reader:
     * 16, 17 and 18 (0, 1 and 2) do for every reader from 1.19 to 1.23, while a 1.24 reads 1.16's 0
     * as 1.32 (a row for 1.24 needs a format without it).
     */
    static final Format V1_19 = new Format("1.19", 64, 0x7f, 0b111);
  }

  private static final int VERSION_MASK = 0xf;
  private static final int VERSION_V1 = 0;
  private static final int VERSION_V2 = 1;
  private static final int FLAGS_SHIFT_V1 = 4;
  private static final int HEADER_DEBUG_INFO = 1;
  private static final int HEADER_WORKER_UUID = 1 << 1;
  private static final int HEADER_CLIENT_ID = 1 << 2;
  private static final int NULL_RESOURCE = 0xff;
  private static final int FLAG_LAST = 0x80;
  private static final int FLAG_HAS_EP_ADDR = 0x40;
  private static final int FLAG_NUM_PATHS = 0x40;
  private static final int FLAG_SYS_DEVICE = 0x20;
  private static final int IFACE_LEN_MASK = 0xff ^ (FLAG_HAS_EP_ADDR | FLAG_LAST);
  private static final int DEVICE_LEN_MASK = 0xff ^ (FLAG_SYS_DEVICE | FLAG_NUM_PATHS | FLAG_LAST);
  private static final int MD_EMPTY_DEV = 0x80;
  private static final int MD_MASK = 0xff ^ MD_EMPTY_DEV;
  private static final int RELEASE_MASK = 0xf;
  private static final int NO_RELEASE = -1;
  private static final int MAX_RESOURCES = 128; // UCP_MAX_RESOURCES: devices and interfaces
  private static final int MAX_MDS = 64; // UCP_MAX_MDS
  private static final int IFACE_ATTR_V1 = 16; // float overhead, bandwidth, lat_ovh; u32 flags
  private static final int IFACE_ATTR_V2 = 8; // fp8 x3, u8 prio, u16 seg size, u16 flags

  private final byte[] a;
  private final Format format;
  private int at;

  private UcxWorkerAddress(byte[] address, Format format) {
    this.a = address;
    this.format = format;
  }

  /**
   * Null when {@code transportAddress} is framed as {@link UcxAddress} and UCX can read both worker
   * addresses in it safely, else what is wrong with it.
   */
  static String problem(byte[] transportAddress, Format format) {
    UcxAddress a;
    try {
      a = UcxAddress.read(transportAddress);
    } catch (IllegalArgumentException e) {
      return "framing: " + e.getMessage();
    }
    String data = workerProblem(a.data(), format);
    if (data != null) {
      return "data worker: " + data;
    }
    String control = a.control() == null ? null : workerProblem(a.control(), format);
    return control == null ? null : "control worker: " + control;
  }

  /** Null when UCX can read the worker address {@code address} safely, else what is wrong. */
  static String workerProblem(byte[] address, Format format) {
    try {
      new UcxWorkerAddress(address, format).walk();
      return null;
    } catch (Malformed m) {
      return m.getMessage();
    }
  }

  private void walk() {
    int header = u8();
    int version = header & VERSION_MASK;
    int flags;
    if (version == VERSION_V1) {
      flags = header >>> FLAGS_SHIFT_V1;
    } else if (version == VERSION_V2) {
      flags = u8(); // the header's upper 4 bits are the packer's release (1.16 on), not flags
    } else {
      throw new Malformed("version " + version + " (UCX reads 0 and 1)");
    }
    // ucp_ep_create asks for the UUID: a v1 address always carries one
    if (version == VERSION_V1 || (flags & HEADER_WORKER_UUID) != 0) {
      skip(8);
    }
    if ((flags & HEADER_CLIENT_ID) != 0) {
      skip(8);
    }
    if ((flags & HEADER_DEBUG_INFO) != 0) {
      skip(u8()); // the worker's name
    }
    if (peek() == NULL_RESOURCE) {
      return; // no transports
    }
    int devices = 0;
    int ifaces = 0;
    int legacyMd = -1; // the largest v1 md index that is in range only without the legacy flags
    int release = NO_RELEASE;
    boolean lastDevice;
    do {
      if (++devices > MAX_RESOURCES) {
        throw new Malformed("more than " + MAX_RESOURCES + " devices");
      }
      boolean emptyDevice = (peek() & MD_EMPTY_DEV) != 0;
      int md = extended(version == VERSION_V1 ? format.mdMaskV1() : MD_MASK, version);
      if (md >= MAX_MDS) {
        if (version != VERSION_V1) {
          throw new Malformed("md index " + md);
        }
        legacyMd = Math.max(legacyMd, md); // under 32 without the legacy flags
      }
      int deviceFlags = peek() & ~DEVICE_LEN_MASK;
      lastDevice = (deviceFlags & FLAG_LAST) != 0;
      if (emptyDevice && lastDevice) {
        release = md & RELEASE_MASK; // where UCX reads the peer's release from (1.16 on)
      }
      int deviceLength = extended(DEVICE_LEN_MASK, version);
      if ((deviceFlags & FLAG_NUM_PATHS) != 0 && u8() == 0) {
        throw new Malformed("a device of 0 paths");
      }
      if ((deviceFlags & FLAG_SYS_DEVICE) != 0) {
        skip(1);
      }
      skip(deviceLength);
      boolean lastIface = emptyDevice;
      while (!lastIface) {
        if (++ifaces > MAX_RESOURCES) {
          throw new Malformed("more than " + MAX_RESOURCES + " interfaces");
        }
        skip(2); // the transport name's checksum
        attributes(version);
        int ifaceFlags = peek();
        lastIface = (ifaceFlags & FLAG_LAST) != 0;
        skip(extended(IFACE_LEN_MASK, version));
        boolean lastEp = (ifaceFlags & FLAG_HAS_EP_ADDR) == 0;
        for (int eps = 0; !lastEp; eps++) {
          if (eps == format.maxLanes()) {
            throw new Malformed("more than " + format.maxLanes() + " endpoint addresses");
          }
          skip(u8());
          lastEp = (u8() & FLAG_LAST) != 0; // the lane, with the last flag
        }
      }
    } while (!lastDevice);
    // UCX removes the legacy flags only once it knows the peer's release, after the last device
    if (legacyMd >= 0 && release != NO_RELEASE && (format.legacyReleases() >>> release & 1) == 0) {
      throw new Malformed("md index " + legacyMd + " from release " + release + " (mod 16)");
    }
  }

  /**
   * An interface's packed attributes, whose overhead, latency and bandwidth go into UCX's lane
   * scores, which it asserts are not negative: so no negative overhead or latency, no NaN or
   * infinity, no bandwidth of 0. v1 carries floats (a negative bandwidth is an old peer's, which
   * UCX turns positive); v2 8-bit floats whose all-ones exponent is NaN or infinity.
   */
  private void attributes(int version) {
    if (version == VERSION_V1) {
      need(IFACE_ATTR_V1);
      float overhead = Float.intBitsToFloat(le32(at));
      float bandwidth = Float.intBitsToFloat(le32(at + 4));
      float latency = Float.intBitsToFloat(le32(at + 8));
      if (!(overhead >= 0) || Float.isInfinite(overhead)) {
        throw new Malformed("overhead " + overhead);
      }
      if (!Float.isFinite(bandwidth) || bandwidth == 0) {
        throw new Malformed("bandwidth " + bandwidth);
      }
      if (!(latency >= 0) || Float.isInfinite(latency)) {
        throw new Malformed("latency " + latency);
      }
      at += IFACE_ATTR_V1;
    } else {
      need(IFACE_ATTR_V2);
      for (int i = 0; i < 3; i++) { // overhead, bandwidth, latency
        if ((a[at + i] & FP8_EXPONENT) == FP8_EXPONENT) {
          throw new Malformed("an 8-bit float of NaN or infinity");
        }
      }
      at += IFACE_ATTR_V2;
    }
  }

  private static final int FP8_EXPONENT = 0xf;

  /** ucp_address_unpack_byte_extended: a value under {@code mask}, or the next byte in v2. */
  private int extended(int mask, int version) {
    int value = u8() & mask;
    if (version != VERSION_V1 && value == mask) {
      value = u8();
    }
    return value;
  }

  private int peek() {
    need(1);
    return a[at] & 0xff;
  }

  private int u8() {
    need(1);
    return a[at++] & 0xff;
  }

  private void skip(int n) {
    need(n);
    at += n;
  }

  private int le32(int i) {
    return (a[i] & 0xff) | (a[i + 1] & 0xff) << 8 | (a[i + 2] & 0xff) << 16 | a[i + 3] << 24;
  }

  private void need(int n) {
    if (n > a.length - at) {
      throw new Malformed("ends at byte " + a.length + ", " + n + " more needed at " + at);
    }
  }

  private static final class Malformed extends RuntimeException {
    Malformed(String why) {
      super(why, null, false, false);
    }
  }
}
