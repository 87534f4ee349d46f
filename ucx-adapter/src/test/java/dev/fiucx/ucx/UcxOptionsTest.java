package dev.fiucx.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fiucx.FiErrno;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Option translation and the UCX status to fi_errno mapping. */
@RequiresUcx
class UcxOptionsTest {
  private static final UcxSeries V1_13 = UcxSeries.of(1, 13);
  private static final UcxSeries V1_18 = UcxSeries.of(1, 18);

  @Test
  void fromProtocolsV2OnDataEndpointsGoWithoutFailureHandlingAndAControlWorkerWatches() {
    UcxOptions o = UcxOptions.defaults();
    assertFalse(o.withTransports("tcp").detectPeerFailure(null, V1_18));
    assertTrue(o.withTransports("tcp").controlWorker(null, V1_18));
    assertFalse(o.withTransports("shm").detectPeerFailure(null, V1_18));
    assertTrue(o.withTransports("shm").controlWorker(null, V1_18));
    assertTrue(
        o.withTransports("tcp").withPeerFailureDetection(true).detectPeerFailure(null, V1_18));
  }

  @Test
  void transportNamesBecomeUcxTls() {
    UcxOptions o = UcxOptions.defaults();
    assertNull(o.tlsOverride(), "UCX_TLS from the environment");
    assertEquals("sm,self", o.withTransports("shm").tlsOverride());
    assertEquals("sm,self", o.withTransports(" SHM ").tlsOverride());
    assertEquals("tcp", o.withTransports("tcp").tlsOverride());
    assertEquals("rc,sm", o.withTransports("rc,sm").tlsOverride());
    // rc needs a transport to wire up on (UCX's own alias rc_v adds the same)
    assertEquals("rc_verbs,ud_verbs:aux", o.withTransports("rc_verbs").tlsOverride());
    assertEquals("rc_verbs,ud_verbs", o.withTransports("rc_verbs,ud_verbs").tlsOverride());
  }

  @Test
  void theControlChannelGetsAWorkerOfItsOwnWhereverSharedMemoryMayBeUsed() {
    UcxOptions o = UcxOptions.defaults();
    assertTrue(o.withTransports("shm").controlWorker(null, V1_13));
    assertTrue(o.withTransports("sm,self,tcp").controlWorker(null, V1_13));
    assertTrue(o.withTransports("posix,self").controlWorker(null, V1_13));
    assertTrue(o.controlWorker("sm,self", V1_13), "from UCX_TLS");
    assertTrue(o.controlWorker(null, V1_13), "UCX's default: all, shared memory included");
    assertTrue(o.withTransports("^tcp").controlWorker(null, V1_13));
    assertFalse(
        o.withTransports("tcp").controlWorker(null, V1_13), "every endpoint fails by itself");
    assertFalse(o.withTransports("shm").withPeerFailureDetection(true).controlWorker(null, V1_13));
  }

  @Test
  void failureDetectionIsOnOnlyWithoutSharedMemory() {
    UcxOptions o = UcxOptions.defaults();
    assertTrue(o.withTransports("tcp").detectPeerFailure(null, V1_13));
    assertFalse(o.withTransports("shm").detectPeerFailure(null, V1_13));
    assertFalse(o.withTransports("tcp,sysv").detectPeerFailure(null, V1_13));
    assertFalse(o.withTransports("^tcp").detectPeerFailure(null, V1_13));
    assertFalse(o.detectPeerFailure(null, V1_13), "UCX's default is all transports");
    assertTrue(o.detectPeerFailure("tcp", V1_13), "from UCX_TLS");
    assertFalse(o.detectPeerFailure("posix,tcp", V1_13));
    assertTrue(
        o.withTransports("shm").withPeerFailureDetection(true).detectPeerFailure(null, V1_13));
    assertFalse(
        o.withTransports("tcp").withPeerFailureDetection(false).detectPeerFailure(null, V1_13));
    assertThrows(IllegalArgumentException.class, () -> o.withControlTimeout(Duration.ZERO));
  }

  @Test
  void sharedMemoryBetweenProcessesIsAnyListThatMayPickIt() {
    UcxOptions o = UcxOptions.defaults();
    assertTrue(o.withTransports("shm").mayUseSharedMemoryBetweenProcesses(null));
    assertTrue(o.withTransports("tcp,sysv").mayUseSharedMemoryBetweenProcesses(null));
    assertTrue(o.withTransports("^tcp").mayUseSharedMemoryBetweenProcesses(null));
    assertTrue(o.mayUseSharedMemoryBetweenProcesses(null), "UCX's default is all transports");
    assertTrue(o.mayUseSharedMemoryBetweenProcesses("cma,tcp"), "from UCX_TLS");
    assertFalse(o.withTransports("tcp").mayUseSharedMemoryBetweenProcesses(null));
    assertFalse(o.withTransports("self,tcp").mayUseSharedMemoryBetweenProcesses(null));
    assertFalse(o.mayUseSharedMemoryBetweenProcesses("tcp"));
  }

  @Test
  void ucxStatusesMapToFiErrno() {
    assertEquals(0, UcsStatus.toFiErrno(UcxConstants.UCS_OK));
    assertEquals(-FiErrno.ECONNRESET, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_CONNECTION_RESET));
    assertEquals(-FiErrno.ECONNRESET, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_ENDPOINT_TIMEOUT));
    assertEquals(-FiErrno.ETIMEDOUT, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_TIMED_OUT));
    assertEquals(-FiErrno.ECONNRESET, UcsStatus.toFiErrno(-45)); // a link failure
    assertEquals(-FiErrno.ECONNRESET, UcsStatus.toFiErrno(-61)); // an endpoint failure
    assertEquals(-FiErrno.ECANCELED, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_CANCELED));
    assertEquals(-FiErrno.EAGAIN, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_NO_RESOURCE));
    assertEquals(-FiErrno.EINVAL, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_INVALID_PARAM));
    assertEquals(-FiErrno.EHOSTUNREACH, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_UNREACHABLE));
    assertEquals(-FiErrno.EIO, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_IO_ERROR));
    assertEquals(-FiErrno.EOPNOTSUPP, UcsStatus.toFiErrno(UcxConstants.UCS_ERR_UNSUPPORTED));
  }

  @Test
  void statusPointersAboveMinusHundredAreErrors() {
    assertTrue(UcsStatus.isError(-1));
    assertTrue(UcsStatus.isError(-100));
    assertFalse(UcsStatus.isError(-101), "a pointer near the top of the address space");
    assertFalse(UcsStatus.isError(0x7f00_1234_5678L));
    assertFalse(UcsStatus.isError(0));
  }

  @Test
  void ucxNamesItsOwnStatuses() {
    assertEquals("Success", UcpNative.statusString(UcxConstants.UCS_OK));
    assertEquals(
        "Connection reset by remote peer",
        UcpNative.statusString(UcxConstants.UCS_ERR_CONNECTION_RESET));
  }
}
