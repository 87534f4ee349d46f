package dev.fiucx.bootstrap;

import dev.fiucx.PeerRegion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a target tells an initiator that said HELLO: the provider and transport its domain runs, the
 * domain's address ({@code Endpoint.name()}) and its named regions.
 *
 * <pre>
 * WELCOME  u8 n, n bytes provider; u16 n, n bytes transport (empty: the provider's default);
 *          u16 n, n bytes domain address; u16 regions; per region: u8 n, n bytes name,
 *          u64 address, u64 key, u64 length, u64 access
 * </pre>
 *
 * @param transport null when the target's domain runs the provider's default
 * @param regions each with its virtual address at the target as {@code address} (an initiator with
 *     offset addressing passes 0 for byte 0)
 */
public record Welcome(String provider, String transport, byte[] address, List<PeerRegion> regions) {
  /** The most bytes of a domain address (ucx's are some hundred). */
  public static final int MAX_ADDRESS_BYTES = 4096;

  /** The most regions one target serves. */
  public static final int MAX_REGIONS = 256;

  static final int MAX_PROVIDER_BYTES = 64;
  static final int MAX_TRANSPORT_BYTES = 256;

  public Welcome {
    regions = List.copyOf(regions);
    address = address.clone();
  }

  @Override
  public byte[] address() {
    return address.clone();
  }

  byte[] encode() {
    byte[] p = provider.getBytes(StandardCharsets.UTF_8);
    byte[] t = (transport == null ? "" : transport).getBytes(StandardCharsets.UTF_8);
    if (p.length > MAX_PROVIDER_BYTES
        || t.length > MAX_TRANSPORT_BYTES
        || address.length > MAX_ADDRESS_BYTES
        || regions.size() > MAX_REGIONS) {
      throw new IllegalArgumentException("a WELCOME beyond the bootstrap's limits");
    }
    ByteBuffer b =
        ByteBuffer.allocate(
            1
                + p.length
                + 2
                + t.length
                + 2
                + address.length
                + 2
                + regions.size() * (1 + PeerRegion.MAX_NAME_BYTES + 32));
    b.put((byte) p.length).put(p);
    b.putShort((short) t.length).put(t);
    b.putShort((short) address.length).put(address);
    b.putShort((short) regions.size());
    for (PeerRegion r : regions) {
      byte[] n = r.name().getBytes(StandardCharsets.US_ASCII);
      b.put((byte) n.length).put(n);
      b.putLong(r.address()).putLong(r.key()).putLong(r.length()).putLong(r.access());
    }
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  static Welcome decode(byte[] payload) throws BootstrapException {
    Fields f = new Fields("WELCOME", payload);
    String provider = f.string(f.u8(), MAX_PROVIDER_BYTES, "provider");
    String transport = f.string(f.u16(), MAX_TRANSPORT_BYTES, "transport");
    byte[] address = f.bytes(f.u16(), MAX_ADDRESS_BYTES, "domain address");
    if (provider.isEmpty() || address.length == 0) {
      throw f.malformed("an empty provider or domain address");
    }
    int n = f.u16();
    if (n > MAX_REGIONS) {
      throw f.malformed(n + " regions (at most " + MAX_REGIONS + ")");
    }
    List<PeerRegion> regions = new ArrayList<>(n);
    Set<String> names = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String name = f.string(f.u8(), PeerRegion.MAX_NAME_BYTES, "region name");
      long addr = f.u64();
      long key = f.u64();
      long length = f.u64();
      long access = f.u64();
      if (!PeerRegion.validName(name) || !names.add(name)) {
        throw f.malformed("region " + i + " has a bad or repeated name '" + name + "'");
      }
      if (length <= 0) {
        throw f.malformed("region '" + name + "' has length " + length);
      }
      regions.add(new PeerRegion(name, addr, key, length, access));
    }
    f.end();
    return new Welcome(provider, transport.isEmpty() ? null : transport, address, regions);
  }
}
