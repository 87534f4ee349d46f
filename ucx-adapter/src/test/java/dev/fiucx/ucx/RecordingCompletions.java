package dev.fiucx.ucx;

import dev.fiucx.spi.TransportCompletions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Remembers each completion; a token reported twice is a bug in the transport. */
final class RecordingCompletions implements TransportCompletions {
  private final Map<Long, Integer> statuses = new HashMap<>();
  private final List<Long> order = new ArrayList<>();

  @Override
  public synchronized void completed(long token, int status) {
    order.add(token);
    Integer previous = statuses.put(token, status);
    if (previous != null) {
      throw new AssertionError("token " + token + " completed twice");
    }
  }

  synchronized Integer status(long token) {
    return statuses.get(token);
  }

  synchronized int count() {
    return statuses.size();
  }

  /** The tokens in the order they completed. */
  synchronized List<Long> order() {
    return List.copyOf(order);
  }
}
