package dev.fiucx.conformance.vectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fiucx.AtomicFamily;
import dev.fiucx.FiDatatype;
import dev.fiucx.FiOp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Reads JSON Lines vector files: {@code case} records become {@link VectorCase}s, other records are
 * skipped, and a malformed case is reported with its line number rather than stopping the file.
 */
public final class VectorReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();

  /**
   * A case that could not be read: where, and why.
   *
   * @param source the file's name, for messages
   * @param line the line number
   * @param id the case's id, or null when unreadable
   * @param problem what is wrong
   */
  public record Malformed(String source, int line, String id, String problem) {}

  private VectorReader() {}

  /**
   * Reads every line of {@code file}, handing cases and malformed cases to the consumers.
   *
   * @param file the vector file
   * @param cases told of each well-formed case
   * @param malformed told of each malformed record
   */
  public static void read(Path file, Consumer<VectorCase> cases, Consumer<Malformed> malformed) {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      read(file.toString(), in, cases, malformed);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read vectors " + file, e);
    }
  }

  /**
   * Reads every line of {@code in}; {@code source} names it in reports.
   *
   * @param source the file's name, for messages
   * @param in the file's text
   * @param cases told of each well-formed case
   * @param malformed told of each malformed record
   * @throws IOException when {@code in} cannot be read
   */
  public static void read(
      String source, BufferedReader in, Consumer<VectorCase> cases, Consumer<Malformed> malformed)
      throws IOException {
    String line;
    int number = 0;
    while ((line = in.readLine()) != null) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (JsonProcessingException e) {
        malformed.accept(
            new Malformed(source, number, null, "not JSON: " + e.getOriginalMessage()));
        continue;
      }
      if (!"case".equals(node.path("record").asText(null))) {
        continue;
      }
      String id = node.path("id").asText("line " + number);
      try {
        cases.accept(parse(node, id));
      } catch (IllegalArgumentException e) {
        malformed.accept(new Malformed(source, number, id, e.getMessage()));
      }
    }
  }

  static VectorCase parse(JsonNode n, String id) {
    AtomicFamily family = AtomicFamily.ofLabel(n.path("family").asText(""));
    if (family == null) {
      throw new IllegalArgumentException("unknown family '" + n.path("family").asText() + "'");
    }
    FiOp op = n.hasNonNull("op") ? FiOp.ofName(n.get("op").asText()) : null;
    if (op == null && n.hasNonNull("op_id")) {
      op = FiOp.ofId(n.get("op_id").asInt(-1));
    }
    if (op == null) {
      throw new IllegalArgumentException("unknown op '" + n.path("op").asText() + "'");
    }
    FiDatatype dt = n.hasNonNull("datatype") ? FiDatatype.ofName(n.get("datatype").asText()) : null;
    if (dt == null && n.hasNonNull("dt_id")) {
      dt = FiDatatype.ofId(n.get("dt_id").asInt(-1));
    }
    if (dt == null) {
      throw new IllegalArgumentException("unknown datatype '" + n.path("datatype").asText() + "'");
    }
    if (!n.path("count").canConvertToInt() || n.path("count").asInt() < 1) {
      throw new IllegalArgumentException("count must be a positive integer");
    }
    int count = n.get("count").asInt();
    if (count > Integer.MAX_VALUE / dt.size()) {
      // count * size would wrap around and match short (even empty) buffers
      throw new IllegalArgumentException("count " + count + " is too large for " + dt.fiName());
    }
    int bytes = count * dt.size();
    return new VectorCase(
        id,
        family,
        op,
        dt,
        count,
        hex(n, "initial_target", bytes, true),
        hex(n, "operand", bytes, false),
        hex(n, "compare", bytes, false),
        hex(n, "final_target", bytes, true),
        hex(n, "result", bytes, false),
        n.path("nan").asBoolean(false));
  }

  private static byte[] hex(JsonNode n, String field, int bytes, boolean required) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException(field + " is missing");
      }
      return null;
    }
    byte[] b;
    try {
      b = HEX.parseHex(v.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + " is not hex");
    }
    if (b.length != bytes) {
      throw new IllegalArgumentException(
          field + " has " + b.length + " bytes, count * size is " + bytes);
    }
    return b;
  }
}
