package dev.fiucx.ucx;

import java.util.Arrays;

/**
 * Which peer each pending operation went to, kept only where UCX cannot report a dead peer (shared
 * memory without peer-failure handling): there an operation to a peer that died never completes,
 * not even when its endpoint is force-closed (measured with UCX 1.13.1), so the transport ends them
 * itself from this table ({@link UcxPeer#processExited}).
 *
 * <p>A token may be pending several times (the elements of one vector call share it), so each entry
 * counts. With a thread-safe worker a completion can arrive before the poster records its post; the
 * count then goes negative for a moment and the late record brings it back to zero. Entries are
 * touched only for operations that went pending (a round trip through the target's progress), never
 * for those UCX did at once, and under this object's monitor: uncontended in manual progress.
 */
final class PendingTokens {
  private long[] tokens = new long[64];
  private long[] entries = new long[64]; // (peer + 1) << 32 | count; 0 marks an empty cell
  private int size;

  /** An operation to {@code peer} went pending under {@code token}. */
  synchronized void posted(long token, int peer) {
    int i = find(token);
    if (entries[i] == 0) {
      insert(i, token, entry(peer, 1));
      return;
    }
    int count = (int) entries[i] + 1;
    if (count == 0) {
      remove(i); // its completion came first
    } else {
      entries[i] = entry(peer, count);
    }
  }

  /** UCX completed one operation under {@code token}; returns the peer it went to, or -1. */
  synchronized int completed(long token) {
    int i = find(token);
    if (entries[i] == 0) {
      insert(i, token, entry(-1, -1)); // before the poster recorded it
      return -1;
    }
    int peer = (int) (entries[i] >>> 32) - 1;
    int count = (int) entries[i] - 1;
    if (count == 0) {
      remove(i);
    } else {
      entries[i] = (entries[i] & 0xFFFF_FFFF_0000_0000L) | (count & 0xFFFF_FFFFL);
    }
    return peer;
  }

  /**
   * Removes every operation pending to {@code peer} and returns their tokens, a token once per
   * operation.
   */
  synchronized long[] takePeer(int peer) {
    long[] out = new long[0];
    int n = 0;
    for (int i = 0; i < tokens.length; ) {
      long e = entries[i];
      if (e != 0 && (int) (e >>> 32) == peer + 1 && (int) e > 0) {
        int count = (int) e;
        if (n + count > out.length) {
          out = Arrays.copyOf(out, Math.max(16, (n + count) * 2));
        }
        Arrays.fill(out, n, n + count, tokens[i]);
        n += count;
        remove(i); // shifts a later entry into i: look at i again
      } else {
        i++;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** Operations pending in all, for tests. */
  synchronized int pending() {
    int n = 0;
    for (long e : entries) {
      n += e != 0 && (int) e > 0 ? (int) e : 0;
    }
    return n;
  }

  private static long entry(int peer, int count) {
    return (long) (peer + 1) << 32 | (count & 0xFFFF_FFFFL);
  }

  private int mask() {
    return tokens.length - 1;
  }

  private static int hash(long token) {
    long h = token * 0x9E37_79B9_7F4A_7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The cell holding {@code token}, or the empty cell where it would go. */
  private int find(long token) {
    int i = hash(token) & mask();
    while (entries[i] != 0 && tokens[i] != token) {
      i = (i + 1) & mask();
    }
    return i;
  }

  private void insert(int i, long token, long entry) {
    tokens[i] = token;
    entries[i] = entry;
    if (++size * 2 > tokens.length) {
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
      int home = hash(tokens[j]) & mask();
      // move j into the hole unless its home lies cyclically in (hole, j]
      boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (!stays) {
        tokens[hole] = tokens[j];
        entries[hole] = entries[j];
        hole = j;
      }
    }
    entries[hole] = 0;
  }

  private void grow() {
    long[] oldTokens = tokens;
    long[] oldEntries = entries;
    tokens = new long[oldTokens.length * 2];
    entries = new long[oldTokens.length * 2];
    size = 0;
    for (int i = 0; i < oldTokens.length; i++) {
      if (oldEntries[i] != 0) {
        insert(find(oldTokens[i]), oldTokens[i], oldEntries[i]);
      }
    }
  }
}
