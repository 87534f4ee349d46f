package dev.fiucx.conformance.report;

/** Text for the self-contained HTML pages fiucx writes (the conformance report, bench's matrix). */
public final class HtmlText {
  private HtmlText() {}

  /** Text made safe for HTML element content and double- or single-quoted attributes. */
  public static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
