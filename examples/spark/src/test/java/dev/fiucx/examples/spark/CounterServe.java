package dev.fiucx.examples.spark;

import dev.fiucx.DomainAttr;
import dev.fiucx.Fabric;
import dev.fiucx.FiFlags;
import dev.fiucx.ServeAttr;
import dev.fiucx.ServeListener;
import dev.fiucx.Server;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The ticket job's target as a process of its own, as a cluster's would be: the library's server on
 * loopback (port picked by the system) with the 8-byte counter region {@code tickets} and an 8-byte
 * region {@code read-only} that peers may only read. Argument: the transport. Prints {@code PORT p}
 * once serving, {@code CONNECTED client} and {@code DEPARTED client: why} per initiator, and when
 * its standard input ends or says {@code stop}: {@code COUNTER value}, then closes the server and
 * prints {@code STOPPED}.
 */
public final class CounterServe {
  private CounterServe() {}

  public static void main(String[] args) throws IOException {
    ServeAttr attr =
        new ServeAttr(
            "127.0.0.1",
            args.length > 1 ? Integer.parseInt(args[1]) : 0,
            List.of(
                new ServeAttr.Region(
                    TicketJob.DEFAULT_REGION, 8, FiFlags.REMOTE_READ | FiFlags.REMOTE_WRITE),
                new ServeAttr.Region("read-only", 8, FiFlags.REMOTE_READ)),
            DomainAttr.builder().transport(args[0]).build());
    ServeListener log =
        new ServeListener() {
          @Override
          public void connected(String peer, String client) {
            say("CONNECTED " + client);
          }

          @Override
          public void departed(String peer, String client, String why) {
            say("DEPARTED " + client + ": " + why);
          }
        };
    try (Server server = Fabric.serve("ucx", attr, log)) {
      say("PORT " + server.port());
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null && !line.equals("stop"); ) {
        line = in.readLine();
      }
      say("COUNTER " + server.memory(TicketJob.DEFAULT_REGION).get(ValueLayout.JAVA_LONG, 0));
    }
    say("STOPPED");
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
