package dev.fiucx.ucx;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One peer's posts on the ucp path between their last look at the key's revocation (and the peer's
 * failure) and UCX holding the operation. {@link PeerKeys#onRevoke} marks the key revoked, then
 * waits for none to be inside ({@link #awaitEmpty}) before it flushes: a post that looked before
 * the mark is inside the flush, one that looks after it is refused. Without it a post that passed
 * its check just before a REVOKE was handled reached the target after the acknowledgement, and over
 * tcp the target's UCX applied it to memory already unmapped (SIGSEGV in ucp_atomic_req_handler,
 * seen once in CI). {@link UcxPeer#abandon} waits the same way before it closes the endpoint.
 *
 * <p>Where posts race REVOKEs (a thread-safe worker: automatic progress or FI_THREAD_SAFE), the
 * thread that posted first (or first after that one ended) announces its posts with a volatile
 * store and a plain one, where the others pay two atomic adds: one posting thread, the usual case,
 * pays one fence per post. With one thread at a time, the REVOKE is handled between that thread's
 * calls, and nothing is announced.
 */
final class PostWindow {
  /**
   * {@link #enter}'s answers: refused, announced in {@link #posting}, or in {@link #ownerPosting}.
   */
  static final int REFUSED = 0;

  static final int COUNTED = 1;
  static final int OWNED = 2;

  private static final VarHandle POSTING;
  private static final VarHandle OWNER_POSTING;
  private static final VarHandle OWNER;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      POSTING = l.findVarHandle(PostWindow.class, "posting", int.class);
      OWNER_POSTING = l.findVarHandle(PostWindow.class, "ownerPosting", int.class);
      OWNER = l.findVarHandle(PostWindow.class, "owner", Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final boolean postsRace;

  @SuppressWarnings("unused") // through POSTING
  private volatile int posting;

  @SuppressWarnings("unused") // through OWNER
  private volatile Thread owner;

  /** 1 while {@link #owner} is inside. */
  @SuppressWarnings("unused") // through OWNER_POSTING
  private volatile int ownerPosting;

  /**
   * @param postsRace whether several threads may post while another handles a REVOKE
   */
  PostWindow(boolean postsRace) {
    this.postsRace = postsRace;
  }

  /**
   * Announces a post to {@code r}, then looks at its revocation and the peer's failure once more:
   * {@link #REFUSED} (refuse the post) when either is so, else what {@link #exit} must be given
   * once UCX holds the operation. A volatile store then a volatile load here, and the revocation's
   * (or failure's) volatile store then {@link #awaitEmpty}'s loads there: one of the two sees the
   * other.
   */
  int enter(UcxRemoteRegion r, UcxPeer peer) {
    if (!postsRace) {
      return COUNTED; // the caller looked; nothing can revoke the key before this thread posts
    }
    Thread t = Thread.currentThread();
    Thread o = owner;
    if (o == t || (o == null || !o.isAlive()) && OWNER.compareAndSet(this, o, t)) {
      OWNER_POSTING.setVolatile(this, 1);
      if (r.revoked() || peer.failure() != 0) {
        OWNER_POSTING.setRelease(this, 0);
        return REFUSED;
      }
      return OWNED;
    }
    POSTING.getAndAdd(this, 1);
    if (r.revoked() || peer.failure() != 0) {
      POSTING.getAndAdd(this, -1);
      return REFUSED;
    }
    return COUNTED;
  }

  /** Ends what {@link #enter} announced ({@code entered}: its answer, not REFUSED). */
  void exit(int entered) {
    if (!postsRace) {
      return;
    }
    if (entered == OWNED) {
      OWNER_POSTING.setRelease(this, 0);
    } else {
      POSTING.getAndAdd(this, -1);
    }
  }

  /** Returns once no post is inside: every post is then refused or held by UCX. */
  void awaitEmpty() {
    while ((int) POSTING.getVolatile(this) != 0 || (int) OWNER_POSTING.getVolatile(this) != 0) {
      Thread.onSpinWait();
    }
  }
}
