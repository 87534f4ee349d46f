package dev.fiucx.perf.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --duration}: {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1.5s}, or plain seconds. */
final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min)?");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + value + "' is no duration (e.g. 10s, 500ms, 2m, or seconds)");
    }
    double amount = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double millis =
        switch (unit) {
          case "ms" -> amount;
          case "m", "min" -> amount * 60_000;
          default -> amount * 1000;
        };
    if (millis < 1) {
      throw new TypeConversionException("--duration must be at least 1 ms: " + value);
    }
    return Duration.ofMillis(Math.round(millis));
  }
}
