// Tests of the inline SVG module: escaping, number formats, ticks, and hand-worked chart layouts.
#include "sparsemap/plot/svg.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace sparsemap::plot::svg {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

TEST(Svg, EscapesXmlSpecialsAndBadBytes) {
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(escape("tab\tnl\n"), "tab\tnl\n");
  EXPECT_EQ(escape(std::string("a\x01"
                               "b",
                               3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(escape(std::string("nul\0x", 5)), "nul\xEF\xBF\xBDx");
  // Valid UTF-8 passes; a lone continuation byte, a truncated sequence, an overlong form and a
  // surrogate each become U+FFFD.
  EXPECT_EQ(escape("r\xC3\xA9sum\xC3\xA9 \xE2\x82\xAC"), "r\xC3\xA9sum\xC3\xA9 \xE2\x82\xAC");
  EXPECT_EQ(escape("\x80"), "\xEF\xBF\xBD");
  EXPECT_EQ(escape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(escape(""), "");
}

TEST(Svg, NumbersAndLabels) {
  EXPECT_EQ(num(12.5), "12.5");
  EXPECT_EQ(num(80.3333), "80.33");
  EXPECT_EQ(num(-0.001), "0");
  EXPECT_EQ(num(7), "7");
  EXPECT_EQ(label(1234), "1,234");
  EXPECT_EQ(label(2500000), "2.5M");
  EXPECT_EQ(label(500000), "500k");
  EXPECT_EQ(label(99999), "99,999");
  EXPECT_EQ(label(1.25e9), "1.25G");
  EXPECT_EQ(label(0.05), "0.05");
  EXPECT_EQ(label(0), "0");
  EXPECT_EQ(label(-20000), "-20,000");
  EXPECT_EQ(label(2.5), "2.5");
}

TEST(Svg, NiceTicks) {
  EXPECT_EQ(nice_ticks(0, 4, 5), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(nice_ticks(0, 9.3, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(0, 100, 5), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  const auto t = nice_ticks(0.05, 0.19, 5);  // step 0.05: 0.05 .. 0.2
  ASSERT_EQ(t.size(), 4u);
  EXPECT_NEAR(t.front(), 0.05, 1e-12);
  EXPECT_NEAR(t.back(), 0.2, 1e-12);
  // A flat range widens by 10% each side: 2.7 .. 3.3, ticks of 0.2 from 2.6 to 3.4 (0.1 would
  // need 6 intervals); 0 widens to -1 .. 1.
  const auto flat = nice_ticks(3, 3, 5);
  ASSERT_EQ(flat.size(), 5u);
  EXPECT_NEAR(flat.front(), 2.6, 1e-12);
  EXPECT_NEAR(flat.back(), 3.4, 1e-12);
  EXPECT_EQ(nice_ticks(0, 0, 4), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(log_ticks(3e6, 4e8), (std::vector<double>{1e6, 1e7, 1e8, 1e9}));
  EXPECT_EQ(log_ticks(3e6, 4e7), (std::vector<double>{2e6, 5e6, 1e7, 2e7, 5e7}));
}

TEST(Svg, DocumentCountsElementsAndEscapesText) {
  Document d(200, 100, "a <chart>");
  d.rect(1, 2, 3, 4, "#fff", "bar", "tip & more");
  d.text(5, 6, "x<y", 12);
  d.circle(1, 1, 2, "red");
  EXPECT_EQ(d.elements(), 3u);
  const std::string s = d.str();
  EXPECT_NE(s.find("aria-label=\"a &lt;chart&gt;\""), std::string::npos);
  EXPECT_NE(s.find("<title>tip &amp; more</title>"), std::string::npos);
  EXPECT_NE(s.find(">x&lt;y</text>"), std::string::npos);
  EXPECT_EQ(s.find("x<y"), std::string::npos);
  EXPECT_NE(s.find("<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"#fff\" class=\"bar\">"),
            std::string::npos);
}

// Hand-worked: 400 x 300, margins left 72, right 20, top 34, bottom 56 -> plot area x in
// [72, 380] (width 308), y in [34, 244] (height 210). Values 1, 2, 4: ticks 0..4 step 1.
// Slot 308 / 3 = 102.667; bar width 0.8 slot = 82.13; bar i at x = 72 + i slot + 10.27;
// heights v / 4 x 210 = 52.5, 105, 210.
TEST(Svg, BarChartLayoutIsHandWorked) {
  BarChart c;
  c.title = "cycles";
  c.categories = {"a", "b", "c&d"};
  c.values = {1, 2, 4};
  c.width = 400;
  c.height = 300;
  c.y.label = "cycles";
  c.x_label = "layer";
  size_t elements = 0;
  const std::string s = bar_chart(c, &elements);
  EXPECT_EQ(count(s, "class=\"bar\""), 3u);
  EXPECT_NE(s.find("<rect x=\"82.27\" y=\"191.5\" width=\"82.13\" height=\"52.5\""),
            std::string::npos);
  EXPECT_NE(s.find("<rect x=\"184.93\" y=\"139\" width=\"82.13\" height=\"105\""),
            std::string::npos);
  EXPECT_NE(s.find("<rect x=\"287.6\" y=\"34\" width=\"82.13\" height=\"210\""), std::string::npos);
  // Elements: title 1; y axis: 5 ticks x (grid line + label) + axis label = 11; 3 bars + 3
  // category labels; x axis line and label 2: 20.
  EXPECT_EQ(elements, 20u);
  EXPECT_EQ(count(s, "<text"), 1u + 5 + 1 + 3 + 1);
  EXPECT_NE(s.find(">c&amp;d</text>"), std::string::npos);
  // The y grid line of tick 2 sits at 244 - 2 / 4 x 210 = 139.
  EXPECT_NE(s.find("<line x1=\"72\" y1=\"139\" x2=\"380\" y2=\"139\""), std::string::npos);
}

// With an overlay: right margin 64 -> plot width 264, slot 88; overlay points at slot centres
// 72 + 44 = 116, 204, 292 on a 0..100 axis (ticks step 20) of height 210: 50 -> y 139.
TEST(Svg, BarChartOverlayOnRightAxis) {
  BarChart c;
  c.categories = {"a", "b", "c"};
  c.values = {1, 2, 4};
  c.overlay = {50, 100, 0.0 / 0.0};
  c.width = 400;
  c.height = 300;
  c.y.label = "cycles";
  c.y2.label = "util %";
  const std::string s = bar_chart(c);
  EXPECT_EQ(count(s, "class=\"overlay-point\""), 2u);  // NaN is not drawn
  EXPECT_NE(s.find("<circle cx=\"116\" cy=\"139\""), std::string::npos);
  EXPECT_NE(s.find("<circle cx=\"204\" cy=\"34\""), std::string::npos);
  EXPECT_NE(s.find("<polyline points=\"116,139 204,34\""), std::string::npos);
}

// Scatter 500 x 400: plot area x in [80, 476] (width 396), y in [34, 344] (height 310).
// x 0..1 (ticks 0, 0.2, ..., 1), y log 1e2..1e4 (ticks 1, 2, 5 x 10^k from 100 to 10,000):
// point (0.5, 1000) -> x 278, y 344 - 0.5 x 310 = 189.
TEST(Svg, ScatterLogAxis) {
  ScatterChart c;
  c.width = 500;
  c.height = 400;
  c.x.label = "area (mm^2)";
  c.y.label = "cycles";
  c.y.log = true;
  Series s;
  s.label = "designs";
  s.x = {0, 0.5, 1};
  s.y = {100, 1000, 10000};
  s.line = true;
  c.series.push_back(s);
  size_t elements = 0;
  const std::string out = scatter_chart(c, &elements);
  EXPECT_EQ(count(out, "class=\"point\""), 3u);
  EXPECT_NE(out.find("<circle cx=\"278\" cy=\"189\""), std::string::npos);
  EXPECT_NE(out.find("<circle cx=\"80\" cy=\"344\""), std::string::npos);
  EXPECT_NE(out.find("<circle cx=\"476\" cy=\"34\""), std::string::npos);
  EXPECT_EQ(count(out, "<polyline"), 1u);
  EXPECT_NE(out.find(">area (mm^2)</text>"), std::string::npos);
}

TEST(Svg, StackedBarsSegmentsAddUp) {
  StackedBars c;
  c.rows = {"cpu", "accel"};
  c.values = {{75, 25}, {40, 60}};
  c.segment_labels = {"GEMM", "NonGEMM"};
  c.x.label = "% of time";
  c.x.hi = 100;
  c.width = 500;
  const std::string s = stacked_bars(c);
  EXPECT_EQ(count(s, "class=\"segment\""), 4u);
  // Plot x in [170, 476] (width 306), 0..100: the first row's segments 229.5 and 76.5 wide.
  EXPECT_NE(s.find("<rect x=\"170\" y=\"63.1\" width=\"229.5\""), std::string::npos);
  EXPECT_NE(s.find("<rect x=\"399.5\" y=\"63.1\" width=\"76.5\""), std::string::npos);
}

}  // namespace
}  // namespace sparsemap::plot::svg
