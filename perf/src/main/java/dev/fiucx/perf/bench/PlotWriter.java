package dev.fiucx.perf.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;

/**
 * bench's PNG plots, drawn with XChart: the latency percentile distribution (HdrHistogram's usual
 * picture: latency against percentile on a 1/(1-p) axis, so 90%, 99%, 99.9% are evenly spaced) and
 * the rate against the window of a window sweep. Under bench -P the latency plot has one curve for
 * all initiators and one for each.
 */
final class PlotWriter {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 560;

  private PlotWriter() {}

  /**
   * One latency distribution of a plot: a name for its legend and the histogram.
   *
   * @param name the legend's words for it (a chart's names are all different)
   * @param histogram its samples, in nanoseconds
   */
  record Curve(String name, Histogram histogram) {}

  /** Latency against percentile, one point per percentile step of HdrHistogram. */
  static void percentiles(Path file, Histogram h, String title, String kind) throws IOException {
    percentiles(file, title, kind, List.of(new Curve("latency", h)));
  }

  /**
   * Several latency distributions on one chart (bench -P: every initiator's added up, then each
   * one's), with a legend when there is more than one.
   */
  static void percentiles(Path file, String title, String kind, List<Curve> curves)
      throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle("percentile")
            .yAxisTitle("latency, " + kind + " (us)")
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setXAxisTickLabelsFormattingFunction(PlotWriter::percentileLabel);
    chart.getStyler().setYAxisLogarithmic(true); // tails are orders of magnitude above the median
    chart.getStyler().setLegendVisible(curves.size() > 1);
    chart.getStyler().setMarkerSize(3);
    for (Curve c : curves) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (HistogramIterationValue v : c.histogram().percentiles(5)) {
        double p = v.getPercentileLevelIteratedTo();
        if (p >= 100.0) {
          break; // 1/(1-p) is infinite there; the max is the last point below
        }
        x.add(1 / (1 - p / 100));
        y.add(Math.max(1, v.getValueIteratedTo()) / 1e3);
      }
      if (x.isEmpty()) {
        x.add(1.0);
        y.add(0.001);
      }
      chart.addSeries(c.name(), x, y);
    }
    save(chart, file);
  }

  /** Rate (million calls per second) against the window, one point per window of the sweep. */
  static void rateAgainstWindow(Path file, List<BenchResult> sweep, String title)
      throws IOException {
    List<Double> x = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    for (BenchResult r : sweep) {
      x.add((double) r.config().window());
      y.add(r.opsPerSecond() / 1e6);
    }
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle("window (calls in flight per thread)")
            .yAxisTitle("rate (million calls/s)")
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setLegendVisible(false);
    XYSeries s = chart.addSeries("rate", x, y);
    s.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CIRCLE);
    save(chart, file);
  }

  /** 1/(1-p) back to a percentile label: 10 -> 90%, 1000 -> 99.9%. */
  private static String percentileLabel(Double x) {
    double p = 100 * (1 - 1 / x);
    if (p <= 0) {
      return "0%";
    }
    String s = String.format(Locale.ROOT, "%.4f", p).replaceAll("0+$", "").replaceAll("\\.$", "");
    return s + "%";
  }

  private static void save(XYChart chart, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true"); // bench runs on servers without a display
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
    }
  }
}
