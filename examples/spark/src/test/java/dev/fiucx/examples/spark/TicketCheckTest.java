package dev.fiucx.examples.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class TicketCheckTest {
  @Test
  void exactTicketsInAnyOrderAcrossTasksPass() {
    List<long[]> tasks = List.of(new long[] {3, 0}, new long[] {}, new long[] {4, 1, 2});
    assertEquals(List.of(), TicketCheck.problems(tasks, 0, 5, 5));
  }

  @Test
  void ticketsStartAtTheCounterTheJobFound() {
    List<long[]> tasks = List.of(new long[] {1001, 1000}, new long[] {1002});
    assertEquals(List.of(), TicketCheck.problems(tasks, 1000, 3, 1003));
    assertEquals(
        List.of(
            "1 tickets out of range 1000..1002: [999]",
            "1 tickets never fetched: [1002]",
            "the counter holds 1002, not 1003"),
        TicketCheck.problems(List.of(new long[] {1001, 1000, 999}), 1000, 3, 1002));
  }

  @Test
  void theUint64CounterWraps() {
    List<long[]> tasks = List.of(new long[] {-2L, 1, 0, -1L});
    assertEquals(List.of(), TicketCheck.problems(tasks, -2L, 4, 2));
  }

  @Test
  void noRecordsNoTickets() {
    assertEquals(List.of(), TicketCheck.problems(List.of(), 0, 0, 0));
  }

  @Test
  void aLostUpdateIsATicketFetchedTwiceAndOneNeverFetched() {
    List<long[]> tasks = List.of(new long[] {0, 1, 2}, new long[] {2, 3});
    assertEquals(
        List.of(
            "1 repeats of tickets already fetched: [2]",
            "1 tickets never fetched: [4]",
            "the counter holds 4, not 5"),
        TicketCheck.problems(tasks, 0, 5, 4));
  }

  @Test
  void aRetriedTaskTakesMoreTicketsThanRecords() {
    // a task that failed after taking 0 and 1 and ran again took 3 and 4 for the same records
    List<long[]> tasks = List.of(new long[] {3, 4}, new long[] {2});
    assertEquals(
        List.of("3 tickets fetched for 5 records", "2 tickets never fetched: [0, 1]"),
        TicketCheck.problems(tasks, 0, 5, 5));
  }

  @Test
  void tornOrInventedValuesAreOutOfRange() {
    List<long[]> tasks = List.of(new long[] {0, 1, -1L, 1L << 32});
    assertEquals(
        List.of(
            "2 tickets out of range 0..3: [18446744073709551615, 4294967296]",
            "2 tickets never fetched: [2, 3]"),
        TicketCheck.problems(tasks, 0, 4, 4));
  }

  @Test
  void aCounterBeyondTheTicketsIsReported() {
    assertEquals(
        List.of("the counter holds 7, not 2"),
        TicketCheck.problems(List.of(new long[] {1, 0}), 0, 2, 7));
  }

  @Test
  void examplesStopAtFiveButCountsAreWhole() {
    long[] all = new long[20];
    assertEquals(
        List.of(
            "19 repeats of tickets already fetched: [0, 0, 0, 0, 0]",
            "19 tickets never fetched: [1, 2, 3, 4, 5]"),
        TicketCheck.problems(List.of(all), 0, 20, 20));
  }

  @Test
  void recordsBeyondAnIntAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> TicketCheck.problems(List.of(), 0, 1L + Integer.MAX_VALUE, 0));
  }
}
