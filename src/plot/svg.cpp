// Inline SVG drawing: element builder, ticks, and the bar, scatter and stacked-bar charts.
#include "sparsemap/plot/svg.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "sparsemap/numbers.h"

namespace sparsemap::plot::svg {

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr const char* kGrid = "#e3e6ea";
constexpr const char* kAxis = "#555";
constexpr const char* kInk = "#222";

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid (overlong
// forms, surrogates and code points above U+10FFFF are invalid).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return n;
}

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string attr(std::string_view name, std::string_view value) {
  return value.empty() ? "" : " " + std::string(name) + "=\"" + escape(value) + "\"";
}

std::string title_child(std::string_view title) {
  return title.empty() ? "" : "<title>" + escape(title) + "</title>";
}

bool finite(double v) { return std::isfinite(v); }

// Ink that reads on a "#rrggbb" fill: dark on light fills (relative luminance > 0.55).
const char* ink_on(const std::string& fill) {
  if (fill.size() != 7 || fill[0] != '#' ||
      !std::all_of(fill.begin() + 1, fill.end(), [](char ch) { return std::isxdigit(ch); }))
    return "#ffffff";
  const auto channel = [&](size_t i) { return std::stoi(fill.substr(i, 2), nullptr, 16) / 255.0; };
  const double lum = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return lum > 0.55 ? kInk : "#ffffff";
}

// The tick values of an axis over the data range [lo, hi] (with the axis' own bounds when set).
std::vector<double> axis_ticks(const Axis& a, double lo, double hi, bool from_zero) {
  if (finite(a.lo)) lo = a.lo;
  if (finite(a.hi)) hi = a.hi;
  if (a.log) {
    lo = lo > 0 ? lo : 1;
    hi = hi > lo ? hi : lo * 10;
    return log_ticks(lo, hi);
  }
  if (from_zero && !finite(a.lo) && lo >= 0) lo = 0;
  return nice_ticks(lo, hi, 5);
}

// Grid lines and labels of the y axis at `ticks` (left or right side), and its rotated label.
void y_axis(Document& d, const Frame& f, const std::vector<double>& ticks, const std::string& text,
            bool right, bool grid, const std::string& suffix = "") {
  const double x0 = right ? f.left + f.width : f.left;
  for (double t : ticks) {
    const double y = f.y(t);
    if (grid) d.line(f.left, y, f.left + f.width, y, kGrid, 1);
    d.text(right ? x0 + 6 : x0 - 6, y + 4, label(t) + suffix, 11, right ? "start" : "end", kAxis);
  }
  const double lx = right ? x0 + 52 : x0 - 58;
  d.text(lx, f.top + f.height / 2, text, 12, "middle", kInk, right ? 90 : -90);
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&#39;";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += kReplacement;
      ++i;
      continue;
    }
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string num(double v) {
  if (!finite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = trim_zeros(buf);
  return s == "-0" ? "0" : s;
}

std::string label(double v) {
  if (!finite(v)) return "-";
  const double a = std::fabs(v);
  const std::string sign = v < 0 ? "-" : "";
  char buf[64];
  auto scaled = [&](double unit, const char* suffix) {
    std::snprintf(buf, sizeof buf, "%.2f", a / unit);
    return sign + trim_zeros(buf) + suffix;
  };
  if (a >= 1e12) return scaled(1e12, "T");
  if (a >= 1e9) return scaled(1e9, "G");
  if (a >= 1e6) return scaled(1e6, "M");
  if (a >= 1e5) return scaled(1e3, "k");
  if (a >= 1 && std::fabs(a - std::round(a)) < 1e-9)
    return sign + with_commas(static_cast<int64_t>(std::llround(a)));
  if (a >= 1) return scaled(1, "");
  if (a == 0) return "0";
  std::snprintf(buf, sizeof buf, "%.3g", a);
  return sign + buf;
}

const std::string& colour(size_t i) {
  static const std::array<std::string, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                      "#CC79A7", "#56B4E9", "#F0E442", "#999999"};
  return kPalette[i % kPalette.size()];
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  if (!finite(lo) || !finite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  max_ticks = std::max(1, max_ticks);
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad, hi += pad;
  }
  const double raw = (hi - lo) / max_ticks;
  double step = std::pow(10.0, std::floor(std::log10(raw)));
  for (int guard = 0; guard < 8; ++guard) {
    bool done = false;
    for (double m : {1.0, 2.0, 5.0}) {
      const double s = m * step;
      const double a = std::floor(lo / s + 1e-9), b = std::ceil(hi / s - 1e-9);
      if (b - a <= max_ticks) {
        step = s;
        done = true;
        break;
      }
    }
    if (done) break;
    step *= 10;
  }
  const auto a = static_cast<int64_t>(std::floor(lo / step + 1e-9));
  const auto b = static_cast<int64_t>(std::ceil(hi / step - 1e-9));
  std::vector<double> t;
  for (int64_t i = a; i <= b; ++i) t.push_back(static_cast<double>(i) * step);
  return t;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !finite(lo)) lo = 1;
  if (!(hi > lo) || !finite(hi)) hi = lo * 10;
  const int k0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int k1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const bool fine = k1 - k0 <= 2;
  std::vector<double> all;
  for (int k = k0; k <= k1; ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      if (!fine && m != 1.0) continue;
      all.push_back(m * std::pow(10.0, k));
    }
  std::vector<double> t;
  for (size_t i = 0; i < all.size(); ++i) {
    const bool below_lo = i + 1 < all.size() && all[i + 1] <= lo * (1 + 1e-12);
    if (below_lo) continue;
    t.push_back(all[i]);
    if (all[i] >= hi * (1 - 1e-12)) break;
  }
  if (t.size() < 2) t.push_back(t.empty() ? lo : t.back() * 10);
  return t;
}

double Frame::x(double v) const {
  double f = x_log ? (std::log10(std::max(v, 1e-300)) - std::log10(x_lo)) /
                         (std::log10(x_hi) - std::log10(x_lo))
                   : (v - x_lo) / (x_hi - x_lo);
  if (!finite(f)) f = 0;
  return left + std::clamp(f, 0.0, 1.0) * width;
}

double Frame::y(double v) const {
  double f = y_log ? (std::log10(std::max(v, 1e-300)) - std::log10(y_lo)) /
                         (std::log10(y_hi) - std::log10(y_lo))
                   : (v - y_lo) / (y_hi - y_lo);
  if (!finite(f)) f = 0;
  return top + height - std::clamp(f, 0.0, 1.0) * height;
}

Document::Document(double width, double height, std::string_view aria_label)
    : width_(width), height_(height), label_(aria_label) {}

void Document::rect(double x, double y, double w, double h, std::string_view fill,
                    std::string_view cls, std::string_view title) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
           num(h) + "\"" + attr("fill", fill) + attr("class", cls) +
           (title.empty() ? "/>" : ">" + title_child(title) + "</rect>");
  ++elements_;
}

void Document::line(double x1, double y1, double x2, double y2, std::string_view stroke,
                    double stroke_width, std::string_view dash, std::string_view cls) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
           num(y2) + "\"" + attr("stroke", stroke) + " stroke-width=\"" + num(stroke_width) + "\"" +
           attr("stroke-dasharray", dash) + attr("class", cls) + "/>";
  ++elements_;
}

void Document::circle(double cx, double cy, double r, std::string_view fill, std::string_view cls,
                      std::string_view title, std::string_view stroke) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" +
           attr("fill", fill) + attr("stroke", stroke) + attr("class", cls) +
           (title.empty() ? "/>" : ">" + title_child(title) + "</circle>");
  ++elements_;
}

void Document::polyline(const std::vector<std::pair<double, double>>& points,
                        std::string_view stroke, double stroke_width, std::string_view cls) {
  std::string pts;
  for (const auto& [x, y] : points) pts += (pts.empty() ? "" : " ") + num(x) + "," + num(y);
  body_ += "<polyline points=\"" + pts + "\" fill=\"none\"" + attr("stroke", stroke) +
           " stroke-width=\"" + num(stroke_width) + "\" stroke-linejoin=\"round\"" +
           attr("class", cls) + "/>";
  ++elements_;
}

void Document::text(double x, double y, std::string_view s, double size, std::string_view anchor,
                    std::string_view fill, double rotate, std::string_view weight,
                    std::string_view cls) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\"" +
           (anchor == "start" ? "" : attr("text-anchor", anchor)) + attr("fill", fill) +
           attr("font-weight", weight) +
           (rotate != 0 ? " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\""
                        : "") +
           attr("class", cls) + ">" + escape(s) + "</text>";
  ++elements_;
}

std::string Document::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width_) + "\" height=\"" +
         num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) + "\" role=\"img\"" +
         attr("aria-label", label_) +
         " font-family=\"system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', Helvetica, Arial, "
         "sans-serif\">" +
         body_ + "</svg>";
}

std::string bar_chart(const BarChart& c, size_t* elements) {
  Document d(c.width, c.height, c.title);
  const bool over = !c.overlay.empty();
  Frame f;
  f.left = 72;
  f.top = 34;
  f.width = c.width - f.left - (over ? 64 : 20);
  f.height = c.height - f.top - 56;
  double vmax = 0;
  for (double v : c.values)
    if (finite(v)) vmax = std::max(vmax, v);
  const std::vector<double> yt = axis_ticks(c.y, 0, vmax > 0 ? vmax : 1, true);
  f.y_lo = yt.front();
  f.y_hi = yt.back();
  d.text(f.left, 20, c.title, 14, "start", kInk, 0, "bold");
  y_axis(d, f, yt, c.y.label, false, true);
  const size_t n = c.values.size();
  const double slot = n ? f.width / static_cast<double>(n) : f.width;
  const size_t every = std::max<size_t>(1, (n + 39) / 40);
  const std::vector<std::string>& ticks = c.tick_labels.empty() ? c.categories : c.tick_labels;
  for (size_t i = 0; i < n; ++i) {
    const double v = finite(c.values[i]) ? std::max(0.0, c.values[i]) : 0;
    const double x = f.left + slot * static_cast<double>(i) + 0.1 * slot;
    const double y = f.y(v);
    const std::string tip =
        (i < c.categories.size() ? c.categories[i] + ": " : "") + label(c.values[i]);
    d.rect(x, y, 0.8 * slot, f.top + f.height - y, c.colour, "bar", tip);
    if (i % every == 0 && i < ticks.size())
      d.text(x + 0.4 * slot, f.top + f.height + 16, ticks[i], 10, "middle", kAxis);
  }
  d.line(f.left, f.top + f.height, f.left + f.width, f.top + f.height, kAxis, 1);
  d.text(f.left + f.width / 2, c.height - 12, c.x_label, 12, "middle", kInk);
  if (over) {
    double omax = 0;
    for (double v : c.overlay)
      if (finite(v)) omax = std::max(omax, v);
    Frame g = f;
    const std::vector<double> t2 = axis_ticks(c.y2, 0, omax > 0 ? omax : 1, true);
    g.y_lo = t2.front();
    g.y_hi = t2.back();
    y_axis(d, g, t2, c.y2.label, true, false);
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < n && i < c.overlay.size(); ++i)
      if (finite(c.overlay[i]))
        pts.emplace_back(f.left + slot * (static_cast<double>(i) + 0.5), g.y(c.overlay[i]));
    if (pts.size() > 1) d.polyline(pts, c.overlay_colour, 1.5);
    for (size_t i = 0, k = 0; i < n && i < c.overlay.size(); ++i)
      if (finite(c.overlay[i])) {
        d.circle(pts[k].first, pts[k].second, 2.8, c.overlay_colour, "overlay-point",
                 (i < c.categories.size() ? c.categories[i] + ": " : "") + label(c.overlay[i]));
        ++k;
      }
    // Legend: the bars' and the overlay's meaning, top right.
    const double lx = f.left + f.width - 250;
    d.rect(lx, 8, 12, 12, c.colour);
    d.text(lx + 16, 18, c.y.label, 11, "start", kInk);
    d.circle(lx + 136, 14, 4, c.overlay_colour);
    d.text(lx + 144, 18, c.y2.label, 11, "start", kInk);
  }
  if (elements) *elements = d.elements();
  return d.str();
}

std::string scatter_chart(const ScatterChart& c, size_t* elements) {
  Document d(c.width, c.height, c.title);
  Frame f;
  f.left = 80;
  f.top = 34;
  f.width = c.width - f.left - 24;
  f.height = c.height - f.top - 56;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const Mark& m : c.x_marks)
    if (finite(m.value) && (!c.x.log || m.value > 0))
      xlo = std::min(xlo, m.value), xhi = std::max(xhi, m.value);
  for (const Mark& m : c.y_marks)
    if (finite(m.value) && (!c.y.log || m.value > 0))
      ylo = std::min(ylo, m.value), yhi = std::max(yhi, m.value);
  for (const Series& s : c.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!finite(s.x[i]) || !finite(s.y[i])) continue;
      if (c.x.log && s.x[i] <= 0) continue;
      if (c.y.log && s.y[i] <= 0) continue;
      xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
    }
  if (!finite(xlo)) xlo = c.x.log ? 1 : 0, xhi = c.x.log ? 10 : 1;
  if (!finite(ylo)) ylo = c.y.log ? 1 : 0, yhi = c.y.log ? 10 : 1;
  const std::vector<double> xt = axis_ticks(c.x, xlo, xhi, true);
  const std::vector<double> yt = axis_ticks(c.y, ylo, yhi, true);
  f.x_lo = xt.front(), f.x_hi = xt.back(), f.x_log = c.x.log;
  f.y_lo = yt.front(), f.y_hi = yt.back(), f.y_log = c.y.log;
  d.text(f.left, 20, c.title, 14, "start", kInk, 0, "bold");
  y_axis(d, f, yt, c.y.label, false, true);
  for (double t : xt) {
    const double x = f.x(t);
    d.line(x, f.top, x, f.top + f.height, kGrid, 1);
    d.text(x, f.top + f.height + 16, label(t), 11, "middle", kAxis);
  }
  d.line(f.left, f.top + f.height, f.left + f.width, f.top + f.height, kAxis, 1);
  d.line(f.left, f.top, f.left, f.top + f.height, kAxis, 1);
  d.text(f.left + f.width / 2, c.height - 12, c.x.label, 12, "middle", kInk);
  for (const Mark& m : c.x_marks) {
    const double x = f.x(m.value);
    d.line(x, f.top, x, f.top + f.height, kAxis, 1.2, "5 4", "mark");
    d.text(x - 4, f.top + 12, m.label, 11, "end", kAxis);
  }
  for (const Mark& m : c.y_marks) {
    const double y = f.y(m.value);
    d.line(f.left, y, f.left + f.width, y, kAxis, 1.2, "5 4", "mark");
    d.text(f.left + f.width - 6, y - 5, m.label, 11, "end", kAxis);
  }
  for (const Series& s : c.series) {
    std::vector<std::pair<double, double>> pts;
    std::vector<size_t> idx;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!finite(s.x[i]) || !finite(s.y[i])) continue;
      if ((c.x.log && s.x[i] <= 0) || (c.y.log && s.y[i] <= 0)) continue;
      pts.emplace_back(f.x(s.x[i]), f.y(s.y[i]));
      idx.push_back(i);
    }
    if (s.line && pts.size() > 1) d.polyline(pts, s.colour, 2);
    const std::string fill = s.colour;
    for (size_t k = 0; k < pts.size(); ++k) {
      const std::string tip = idx[k] < s.tips.size() ? s.tips[idx[k]] : s.label;
      d.circle(pts[k].first, pts[k].second, s.radius, fill, "point", tip,
               s.outline ? "#ffffff" : "");
    }
  }
  // Legend, top right inside the plot area.
  size_t labelled = 0;
  for (const Series& s : c.series) labelled += !s.label.empty();
  if (labelled) {
    using C = ScatterChart::Corner;
    const double w = 300, h = 8 + 18 * static_cast<double>(labelled);
    const bool right = c.legend == C::TopRight || c.legend == C::BottomRight;
    const bool bottom = c.legend == C::BottomLeft || c.legend == C::BottomRight;
    const double x0 = right ? f.left + f.width - w - 8 : f.left + 8;
    double y = bottom ? f.top + f.height - h - 8 : f.top + 8;
    d.rect(x0, y, w, h, "#ffffff", "legend");
    for (const Series& s : c.series) {
      if (s.label.empty()) continue;
      d.circle(x0 + 14, y + 13, std::max(3.5, s.radius), s.colour);
      d.text(x0 + 26, y + 17, s.label, 11, "start", kInk);
      y += 18;
    }
  }
  if (elements) *elements = d.elements();
  return d.str();
}

std::string stacked_bars(const StackedBars& c, size_t* elements) {
  const double left = 170, top = 58;
  const double height = top + c.row_height * static_cast<double>(c.rows.size()) + 50;
  Document d(c.width, height, c.title);
  Frame f;
  f.left = left;
  f.top = top;
  f.width = c.width - left - 24;
  f.height = c.row_height * static_cast<double>(c.rows.size());
  double most = 0;
  for (const auto& r : c.values) {
    double s = 0;
    for (double v : r) s += finite(v) ? std::max(0.0, v) : 0;
    most = std::max(most, s);
  }
  const std::vector<double> xt = axis_ticks(c.x, 0, most > 0 ? most : 1, true);
  f.x_lo = xt.front(), f.x_hi = xt.back();
  d.text(16, 20, c.title, 14, "start", kInk, 0, "bold");
  // Legend: one swatch per segment, in a row under the title.
  double lx = left;
  for (size_t k = 0; k < c.segment_labels.size(); ++k) {
    const std::string& col = k < c.segment_colours.size() ? c.segment_colours[k] : colour(k);
    d.rect(lx, 30, 12, 12, col);
    d.text(lx + 16, 40, c.segment_labels[k], 11, "start", kInk);
    lx += 28 + 6.5 * static_cast<double>(c.segment_labels[k].size());
  }
  for (double t : xt) {
    const double x = f.x(t);
    d.line(x, f.top, x, f.top + f.height, kGrid, 1);
    d.text(x, f.top + f.height + 16, label(t), 11, "middle", kAxis);
  }
  for (size_t r = 0; r < c.rows.size(); ++r) {
    const double y = f.top + c.row_height * static_cast<double>(r) + 0.15 * c.row_height;
    const double h = 0.7 * c.row_height;
    d.text(left - 8, y + h / 2 + 4, c.rows[r], 12, "end", kInk);
    double acc = 0;
    for (size_t k = 0; r < c.values.size() && k < c.values[r].size(); ++k) {
      const double v = finite(c.values[r][k]) ? std::max(0.0, c.values[r][k]) : 0;
      if (v <= 0) continue;
      const double x0 = f.x(acc), x1 = f.x(acc + v);
      const std::string& col = k < c.segment_colours.size() ? c.segment_colours[k] : colour(k);
      const std::string name = k < c.segment_labels.size() ? c.segment_labels[k] : "";
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", v);
      d.rect(x0, y, x1 - x0, h, col, "segment",
             c.rows[r] + ", " + name + ": " + buf + c.value_suffix);
      if (x1 - x0 > 34)
        d.text((x0 + x1) / 2, y + h / 2 + 4, std::string(buf) + c.value_suffix, 10, "middle",
               ink_on(col), 0, "bold");
      acc += v;
    }
  }
  d.line(f.left, f.top + f.height, f.left + f.width, f.top + f.height, kAxis, 1);
  d.text(f.left + f.width / 2, height - 12, c.x.label, 12, "middle", kInk);
  if (elements) *elements = d.elements();
  return d.str();
}

}  // namespace sparsemap::plot::svg
