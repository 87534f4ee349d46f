package dev.fiucx.ucx;

import java.util.ArrayList;
import java.util.List;

/**
 * A long-keyed map whose {@link #get} neither boxes nor locks, for lookups on the posting path
 * (remote keys, exposed regions). Writes are rare (a resolve, a registration) and copy the table
 * under a lock, so readers on any thread always see a complete, immutable table.
 */
final class LongObjectMap<V> {
  /** Open addressing with linear probing; a null value marks a free slot, so any key is allowed. */
  private record Table(long[] keys, Object[] values, int size) {
    Table(int capacity) {
      this(new long[capacity], new Object[capacity], 0);
    }

    int mask() {
      return keys.length - 1;
    }
  }

  private volatile Table table = new Table(16);

  /** The value for {@code key}, or null. Allocation-free. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    Table t = table;
    long[] keys = t.keys;
    Object[] values = t.values;
    int mask = keys.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (keys[i] == key) {
        return (V) v;
      }
    }
  }

  /** Maps {@code key} to {@code value} (not null); returns the previous value or null. */
  synchronized V put(long key, V value) {
    if (value == null) {
      throw new NullPointerException("value");
    }
    Table t = table;
    V previous = get(key);
    int size = previous == null ? t.size + 1 : t.size;
    int capacity = t.keys.length;
    while (size * 2 > capacity) { // load factor at most 1/2 keeps probes short
      capacity *= 2;
    }
    Table copy = new Table(capacity);
    copyInto(t, copy, key);
    insert(copy, key, value);
    table = new Table(copy.keys, copy.values, size);
    return previous;
  }

  /** Removes {@code key}; returns the value it had or null. */
  synchronized V remove(long key) {
    Table t = table;
    V previous = get(key);
    if (previous != null) {
      Table copy = new Table(t.keys.length);
      copyInto(t, copy, key);
      table = new Table(copy.keys, copy.values, t.size - 1);
    }
    return previous;
  }

  /** A snapshot of the values. */
  @SuppressWarnings("unchecked")
  List<V> values() {
    Table t = table;
    List<V> out = new ArrayList<>(t.size);
    for (Object v : t.values) {
      if (v != null) {
        out.add((V) v);
      }
    }
    return out;
  }

  int size() {
    return table.size;
  }

  private static void copyInto(Table from, Table to, long skipKey) {
    for (int i = 0; i < from.keys.length; i++) {
      if (from.values[i] != null && from.keys[i] != skipKey) {
        insert(to, from.keys[i], from.values[i]);
      }
    }
  }

  private static void insert(Table t, long key, Object value) {
    int mask = t.mask();
    int i = slot(key, mask);
    while (t.values[i] != null) {
      i = (i + 1) & mask;
    }
    t.keys[i] = key;
    t.values[i] = value;
  }

  private static int slot(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing spreads sequential keys too
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
