// Inline SVG drawing for self-contained reports: an element builder, axes with "nice" ticks
// (linear or log), and three charts (bars with an optional overlay series on a right axis,
// scatter/line, horizontal stacked bars), with text escaped by XML rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparsemap::plot::svg {

// `text` safe inside XML character data and attribute values (single or double quoted):
// & < > " ' become entities; control bytes XML 1.0 forbids (C0 except tab, LF, CR) become
// U+FFFD; invalid UTF-8 byte sequences become U+FFFD; valid UTF-8 passes through.
std::string escape(std::string_view text);

// A coordinate or size as SVG text: at most 2 decimals, trailing zeros and "-0" dropped
// ("12.5", "80.33", "0").
std::string num(double v);

// A short tick or value label: 1234 -> "1,234"; >= 1e5 -> "500k", >= 1e6 -> "1.2M", >= 1e9
// "3.4G" (2 decimals at most); below 1, up to 3 significant digits ("0.05", "0.125").
std::string label(double v);

// The Okabe-Ito palette (colour-blind safe), cycled by index: blue, orange, green, vermillion,
// purple, sky blue, yellow, grey.
const std::string& colour(size_t i);

// Linear ticks: the smallest step of 1, 2 or 5 x 10^k giving at most `max_ticks` intervals,
// from floor(lo / step) step to ceil(hi / step) step (lo == hi widens by 10% of |lo| each side,
// or to [-1, 1] at 0).
std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 5);
// Log ticks: the powers of ten covering [lo, hi] (lo, hi > 0), at least two.
std::vector<double> log_ticks(double lo, double hi);

// An SVG document built element by element. Coordinates are user units (= CSS pixels).
// Every drawing call adds exactly one element (text, rect, line, circle, polyline, path) and
// counts it; `title` adds a <title> child (a hover tooltip), which is not counted.
class Document {
 public:
  Document(double width, double height, std::string_view aria_label);
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view cls = "", std::string_view title = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke,
            double stroke_width = 1, std::string_view dash = "", std::string_view cls = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view cls = "",
              std::string_view title = "", std::string_view stroke = "");
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double stroke_width = 1.5, std::string_view cls = "");
  // anchor: "start", "middle" or "end"; rotate: degrees about (x, y); weight: "" or "bold".
  void text(double x, double y, std::string_view s, double size = 12,
            std::string_view anchor = "start", std::string_view fill = "#222", double rotate = 0,
            std::string_view weight = "", std::string_view cls = "");
  size_t elements() const { return elements_; }
  double width() const { return width_; }
  double height() const { return height_; }
  std::string str() const;  // <svg ...>...</svg>, no XML prolog (for inline HTML)

 private:
  double width_, height_;
  std::string label_, body_;
  size_t elements_ = 0;
};

// An axis: its label (with units), its range (NaN: from the data) and its scale.
struct Axis {
  std::string label;
  bool log = false;
  double lo = 0.0 / 0.0, hi = 0.0 / 0.0;  // NaN: from the data (linear: ticks from 0 if >= 0)
};

// The area inside the axes and the mapping of data to it (after ticks rounded the range).
struct Frame {
  double left = 0, top = 0, width = 0, height = 0;  // plot area, user units
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  bool x_log = false, y_log = false;
  double x(double v) const;  // data -> user units (clamped to the area)
  double y(double v) const;
};

// Vertical bars, one per category, from 0 up to its value (left axis: `y`, linear, from 0);
// optionally an overlay series (e.g. utilisation %) drawn as a line with points on a right axis
// `y2` from 0. Layout: margins left 72, right 20 (64 with an overlay), top 34, bottom 56; slot
// width = plot width / n, each bar 80% of its slot, centred. Bars carry class "bar", overlay
// points class "overlay-point". Category labels: every k-th, k = ceil(n / 40).
struct BarChart {
  std::string title;
  std::vector<std::string> categories;   // tooltips and x labels
  std::vector<std::string> tick_labels;  // x labels (empty: the categories)
  std::vector<double> values;
  std::string colour = "#0072B2";
  std::string x_label;
  Axis y;
  std::vector<double> overlay;  // empty: none; else one per category (NaN: not drawn)
  std::string overlay_label;
  std::string overlay_colour = "#D55E00";
  Axis y2;
  double width = 1100, height = 360;
};
std::string bar_chart(const BarChart& c, size_t* elements = nullptr);

// A series of a scatter chart: points (circles of `radius`, class "point") and, with `line`,
// a polyline through them in order. Labels go into the legend (top right inside the area).
struct Series {
  std::string label;
  std::vector<double> x, y;
  std::vector<std::string> tips;  // per point tooltips (optional)
  std::string colour = "#0072B2";
  double radius = 3;
  bool line = false;
  bool outline = true;  // a white ring around each point (separates overlapping points)
};
// A dashed reference line across the plot area at a data value, with a short label (vertical
// lines: at the top, left of the line; horizontal: at the right end, above the line).
struct Mark {
  double value = 0;
  std::string label;
};
struct ScatterChart {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::vector<Mark> x_marks, y_marks;  // vertical and horizontal reference lines
  // Legend corner inside the plot area (pick one the data leaves empty).
  enum class Corner { TopRight, TopLeft, BottomLeft, BottomRight } legend = Corner::TopRight;
  double width = 1100, height = 420;
};
std::string scatter_chart(const ScatterChart& c, size_t* elements = nullptr);

// Horizontal stacked bars (e.g. time shares in %): one row per label, its segments left to
// right in `segment_labels` order and colours; the x axis from 0 to `x.hi` (NaN: the largest
// row sum). Segments carry class "segment"; a segment wider than 34 units shows its value.
struct StackedBars {
  std::string title;
  std::vector<std::string> rows;
  std::vector<std::vector<double>> values;  // [row][segment]
  std::vector<std::string> segment_labels;
  std::vector<std::string> segment_colours;  // empty: colour(i)
  Axis x;
  std::string value_suffix;  // appended to segment value labels ("%")
  double width = 1100;
  double row_height = 34;
};
std::string stacked_bars(const StackedBars& c, size_t* elements = nullptr);

}  // namespace sparsemap::plot::svg
