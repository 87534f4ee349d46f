package dev.fiucx.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.fiucx.spi.ExposedRegion;
import dev.fiucx.spi.ProcessIdentity;
import dev.fiucx.spi.RemoteAtomicOp;
import dev.fiucx.spi.RemoteRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.openucx.jucx.ucp.UcpEndpoint;

/**
 * Every control message a third worker can send, to a target and to an initiator, over UCX shared
 * memory: any kind, with and without UCX's reply flag, as raw bytes, as a well-formed message whose
 * fields are the ones that matter here (the target's key, the initiator's instance id, peer number
 * and worker UUID, the target's, the forger's own, or anything), or such a message cut short,
 * lengthened or with a byte flipped. After each input the honest initiator's fetch-add on the key
 * it resolved is exact, its resolved region is the one it was (not revoked, not replaced), and a
 * new lookup of the key is answered: no message confused the target or the initiator, and none
 * crashed them (Jazzer reports any exception). CI replays the inputs under {@code
 * ControlMessagesFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes for the test's duration.
 */
@RequiresUcx
class ControlMessagesFuzzTest {
  private static final int[] KINDS = ControlMessage.AM_IDS;

  private static TransportPair pair; // a: the honest initiator, b: the target
  private static UcxTransport forger;
  private static Arena arena;
  private static HostileControlProcess.Sender toTarget;
  private static HostileControlProcess.Sender toInitiator;
  private static ExposedRegion region;
  private static RemoteRegion resolved;
  private static MemorySegment fetched;
  private static long counter;
  private static long sent;

  @BeforeAll
  static void open() {
    pair = TransportPair.of("shm");
    forger = new UcxTransport((token, status) -> {}, UcxOptions.defaults().withTransports("shm"));
    arena = Arena.ofShared();
    region = pair.b.allocate(64, Memory.RW);
    assertEquals(0, pair.resolve(region.key()));
    resolved = pair.aToB.cached(region.key());
    fetched = arena.allocate(8, 8);
    UcpEndpoint toB = forger.openControlEndpoint(pair.b.address(), (status, text) -> {});
    UcpEndpoint toA = forger.openControlEndpoint(pair.a.address(), (status, text) -> {});
    toTarget = new HostileControlProcess.Sender(forger, toB, arena, pair::progressBoth);
    toInitiator = new HostileControlProcess.Sender(forger, toA, arena, pair::progressBoth);
  }

  @AfterAll
  static void close() {
    System.out.printf(
        "ControlMessagesFuzzTest: %d messages sent, %d exact fetch-adds after them; target: %s;"
            + " initiator: %s%n",
        sent, counter, pair.b.errors().summary(), pair.a.errors().summary());
    forger.close();
    pair.close();
    arena.close();
  }

  @FuzzTest(maxDuration = "120s")
  void noControlMessageConfusesATargetOrAnInitiator(FuzzedDataProvider data) {
    int messages = data.consumeInt(1, 4);
    for (int i = 0; i < messages; i++) {
      boolean toTheTarget = data.consumeBoolean();
      int kind = data.pickValue(KINDS);
      boolean replyFlag = data.consumeBoolean();
      int shape = data.consumeInt(0, 2);
      byte[] payload =
          shape == 0
              ? data.consumeBytes(data.consumeInt(0, 200))
              : mutated(wellFormed(kind, data), shape == 2, data);
      (toTheTarget ? toTarget : toInitiator).send(kind, payload, replyFlag);
      sent++;
    }
    for (int i = 0; i < 8; i++) { // what was sent is handled before the honest initiator goes on
      pair.progressBoth();
      forger.progress();
    }
    long token = pair.token();
    int posted =
        pair.aToB.postAtomic(resolved, 0, RemoteAtomicOp.ADD, 8, 1, fetched.address(), token);
    assertEquals(0, pair.complete(posted, token), "the honest fetch-add");
    assertEquals(counter, fetched.get(JAVA_LONG, 0), "what the honest fetch-add fetched");
    counter++;
    assertEquals(counter, region.segment().get(JAVA_LONG, 0), "the target's word");
    assertFalse(resolved.revoked(), "the initiator's region was revoked");
    assertEquals(0, pair.resolve(region.key()), "a new lookup");
    assertSame(resolved, pair.aToB.cached(region.key()), "the initiator's region was replaced");
  }

  /** A message of {@code kind} whose fields the fuzzer picks among the values that matter. */
  private static byte[] wellFormed(int kind, FuzzedDataProvider d) {
    return switch (kind) {
      case ControlMessage.AM_RESOLVE ->
          new ControlMessage.Resolve(
                  d.consumeLong(), aLong(d), aLong(d), anInt(d), aLong(d), aLong(d), process(d))
              .encode();
      case ControlMessage.AM_RESOLVE_REPLY ->
          new ControlMessage.ResolveReply(
                  d.consumeLong(),
                  anInt(d),
                  aLong(d),
                  d.consumeBoolean(),
                  d.consumeBoolean(),
                  d.consumeLong(),
                  d.consumeLong(),
                  d.consumeLong(),
                  d.consumeBytes(d.consumeInt(0, 64)))
              .encode();
      case ControlMessage.AM_REVOKE ->
          new ControlMessage.Revoke(aLong(d), anInt(d), aLong(d)).encode();
      case ControlMessage.AM_REVOKE_ACK ->
          new ControlMessage.RevokeAck(aLong(d), aLong(d), anInt(d)).encode();
      default -> new ControlMessage.Release(aLong(d), anInt(d)).encode();
    };
  }

  /** Cut short, lengthened, or a byte flipped, as the fuzzer picks. */
  private static byte[] mutated(byte[] message, boolean mutate, FuzzedDataProvider d) {
    if (!mutate || message.length == 0) {
      return message;
    }
    return switch (d.consumeInt(0, 2)) {
      case 0 -> Arrays.copyOf(message, d.consumeInt(0, message.length - 1));
      case 1 -> Arrays.copyOf(message, message.length + d.consumeInt(1, 16));
      default -> {
        byte[] m = message.clone();
        m[d.consumeInt(0, m.length - 1)] ^= (byte) d.consumeInt(1, 255);
        yield m;
      }
    };
  }

  /**
   * A key, instance id or worker UUID: the target's key, either transport's instance id or UUID,
   * the forger's, or any value. Never the initiator's secret, which only its target learns.
   */
  private static long aLong(FuzzedDataProvider d) {
    return switch (d.consumeInt(0, 8)) {
      case 0 -> region.key();
      case 1 -> pair.a.instanceId();
      case 2 -> pair.b.instanceId();
      case 3 -> pair.a.controlWorkerUuid();
      case 4 -> pair.b.controlWorkerUuid();
      case 5 -> forger.instanceId();
      case 6 -> forger.controlWorkerUuid();
      case 7 -> 0;
      default -> d.consumeLong();
    };
  }

  /** A peer number: the initiator's peer to the target, the target's to it, or any. */
  private static int anInt(FuzzedDataProvider d) {
    return switch (d.consumeInt(0, 3)) {
      case 0 -> pair.aToB.id();
      case 1 -> pair.bToA.id();
      case 2 -> d.consumeInt(-1, 8);
      default -> d.consumeInt();
    };
  }

  private static ProcessIdentity process(FuzzedDataProvider d) {
    return switch (d.consumeInt(0, 2)) {
      case 0 -> ProcessIdentity.self();
      case 1 -> ProcessIdentity.UNKNOWN;
      default ->
          new ProcessIdentity(
              d.consumeInt(), d.consumeLong(), d.consumeLong(), d.consumeLong(), d.consumeLong());
    };
  }
}
