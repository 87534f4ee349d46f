package dev.fiucx.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fiucx.FiErrno;
import dev.fiucx.RmaIoc;
import org.junit.jupiter.api.Test;

class RemoteElementsTest {
  @Test
  void aTotalBeyondALongSaturatesInsteadOfWrapping() {
    RemoteElements r = new RemoteElements();
    // these three wrap to 0 in 64-bit arithmetic: taken for "no elements" or worse before
    assertEquals(
        0,
        r.set(
            new RmaIoc[] {
              new RmaIoc(0, Long.MAX_VALUE, 1),
              new RmaIoc(0, Long.MAX_VALUE, 1),
              new RmaIoc(0, 2, 1)
            },
            3));
    assertEquals(Long.MAX_VALUE, r.total());
    r.set(new RmaIoc[] {new RmaIoc(0, 1L << 62, 1), new RmaIoc(0, 1L << 62, 1)}, 2);
    assertEquals(Long.MAX_VALUE, r.total());
    r.set(new RmaIoc[] {new RmaIoc(0, 3, 1), new RmaIoc(0, 4, 1)}, 2);
    assertEquals(7, r.total());
  }

  @Test
  void negativeMissingOrTooManyRmaIovsAreInvalid() {
    RemoteElements r = new RemoteElements();
    r.set(new RmaIoc[] {new RmaIoc(0, 3, 1), new RmaIoc(0, -1, 1)}, 2);
    assertEquals(-FiErrno.EINVAL, r.total());
    r.set(0, Long.MIN_VALUE, 1);
    assertEquals(-FiErrno.EINVAL, r.total());
    assertEquals(-FiErrno.EINVAL, r.set(null, 1));
    assertEquals(-FiErrno.EINVAL, r.total());
    assertEquals(-FiErrno.EINVAL, r.set(new RmaIoc[2], 3));
    assertEquals(-FiErrno.EINVAL, r.set(new RmaIoc[] {null}, 1));
    assertEquals(-FiErrno.EINVAL, r.set(new RmaIoc[17], 17));
    assertEquals(-FiErrno.EINVAL, r.set(new RmaIoc[1], 0));
  }
}
