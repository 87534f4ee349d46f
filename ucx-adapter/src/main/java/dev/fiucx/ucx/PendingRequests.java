package dev.fiucx.ucx;

import java.util.Arrays;

/**
 * The UCX requests pending to each peer, kept only where UCX cannot report a dead peer (shared
 * memory, and tcp on protocols v2, neither with peer-failure handling): there an operation to a
 * peer that died may never complete, so the transport ends it itself from this table ({@link
 * UcxPeer#processExited}). Some of them UCX still completes later (UCX 1.18's shared memory fails a
 * cma get or put once the process is gone): such a late completion of an operation already ended
 * here is recognised ({@link #ENDED}) and reported to nobody.
 *
 * <p>An entry is keyed by the request's address and the engine's token. Tokens alone are reused (an
 * engine slot is opened again once its operation ended), and a late completion would end the next
 * operation of that slot; a request's address is not reused while UCX holds the request, and UCX
 * holds one it never completed for good. With a thread-safe worker a completion can arrive before
 * the poster records its post; the entry's count then goes negative for a moment and the late
 * record brings it back to zero. Should UCX hand the same address out again to the same token
 * meanwhile, the two entries are alike and the counts still balance. Entries are touched only for
 * operations that went pending (a round trip through the target's progress), never for those UCX
 * did at once, and under this object's monitor: uncontended in manual progress.
 */
final class PendingRequests {
  /** What {@link #completed} returns for a request of no known peer (completed before recorded). */
  static final int UNKNOWN = -1;

  /** What {@link #completed} returns for a request the transport already ended: report nothing. */
  static final int ENDED = -2;

  private long[] requests = new long[64];
  private long[] tokens = new long[64];
  private long[] entries = new long[64]; // (peer + 1) << 32 | count; 0 marks an empty cell
  private int size;

  /** Request {@code request} of the operation {@code token} to {@code peer} went pending. */
  synchronized void posted(long request, long token, int peer) {
    int i = find(request, token);
    if (entries[i] == 0) {
      insert(i, request, token, entry(peer, 1));
      return;
    }
    int count = count(entries[i]) + 1;
    if (count == 0) {
      remove(i); // its completion came first
    } else {
      entries[i] = entry(peer(entries[i]) == UNKNOWN ? peer : peer(entries[i]), count);
    }
  }

  /**
   * UCX completed {@code request} of the operation {@code token}; returns the peer it went to,
   * {@link #UNKNOWN} when it was not recorded yet, or {@link #ENDED} when the transport already
   * ended it.
   */
  synchronized int completed(long request, long token) {
    int i = find(request, token);
    if (entries[i] == 0) {
      insert(i, request, token, entry(UNKNOWN, -1)); // before the poster recorded it
      return UNKNOWN;
    }
    int peer = peer(entries[i]);
    int count = count(entries[i]) - 1;
    if (count == 0) {
      remove(i);
    } else {
      entries[i] = entry(peer, count);
    }
    return peer;
  }

  /**
   * Marks every operation pending to {@code peer} as ended by the transport and returns their
   * tokens, a token once per operation. Their entries stay until UCX completes them, if it ever
   * does: the one it never completes holds its request's address anyway.
   */
  synchronized long[] takePeer(int peer) {
    long[] out = new long[0];
    int n = 0;
    for (int i = 0; i < entries.length; i++) {
      long e = entries[i];
      if (e != 0 && peer(e) == peer && count(e) > 0) {
        int count = count(e);
        if (n + count > out.length) {
          out = Arrays.copyOf(out, Math.max(16, (n + count) * 2));
        }
        Arrays.fill(out, n, n + count, tokens[i]);
        n += count;
        entries[i] = entry(ENDED, count);
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** Operations pending in all (not ended), for tests. */
  synchronized int pending() {
    int n = 0;
    for (long e : entries) {
      n += e != 0 && peer(e) != ENDED && count(e) > 0 ? count(e) : 0;
    }
    return n;
  }

  /** Operations ended by the transport that UCX has not completed yet, for tests. */
  synchronized int ended() {
    int n = 0;
    for (long e : entries) {
      n += e != 0 && peer(e) == ENDED ? count(e) : 0;
    }
    return n;
  }

  private static long entry(int peer, int count) {
    return (long) (peer + 1) << 32 | (count & 0xFFFF_FFFFL);
  }

  private static int peer(long entry) {
    return (int) (entry >>> 32) - 1;
  }

  private static int count(long entry) {
    return (int) entry;
  }

  private int mask() {
    return entries.length - 1;
  }

  private static int hash(long request, long token) {
    long h = (request ^ Long.rotateLeft(token, 29)) * 0x9E37_79B9_7F4A_7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The cell holding ({@code request}, {@code token}), or the empty cell where it would go. */
  private int find(long request, long token) {
    int i = hash(request, token) & mask();
    while (entries[i] != 0 && (requests[i] != request || tokens[i] != token)) {
      i = (i + 1) & mask();
    }
    return i;
  }

  private void insert(int i, long request, long token, long entry) {
    requests[i] = request;
    tokens[i] = token;
    entries[i] = entry;
    if (++size * 2 > entries.length) {
      grow();
    }
  }

  /**
   * Empties cell {@code i} and shifts back the entries after it (linear probing, no tombstones).
   */
  private void remove(int i) {
    size--;
    int hole = i;
    int j = i;
    while (true) {
      j = (j + 1) & mask();
      if (entries[j] == 0) {
        break;
      }
      int home = hash(requests[j], tokens[j]) & mask();
      // move j into the hole unless its home lies cyclically in (hole, j]
      boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (!stays) {
        requests[hole] = requests[j];
        tokens[hole] = tokens[j];
        entries[hole] = entries[j];
        hole = j;
      }
    }
    entries[hole] = 0;
  }

  private void grow() {
    long[] oldRequests = requests;
    long[] oldTokens = tokens;
    long[] oldEntries = entries;
    requests = new long[oldEntries.length * 2];
    tokens = new long[oldEntries.length * 2];
    entries = new long[oldEntries.length * 2];
    size = 0;
    for (int i = 0; i < oldEntries.length; i++) {
      if (oldEntries[i] != 0) {
        insert(find(oldRequests[i], oldTokens[i]), oldRequests[i], oldTokens[i], oldEntries[i]);
      }
    }
  }
}
