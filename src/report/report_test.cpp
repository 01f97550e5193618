// Tests of the report: each section's numbers against the library that computes them, the
// co-design front against run_codesign's, the page's structure, escaping and bad options.
#include "sparsemap/report/report.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>

#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::report {
namespace {

using workload::Layer;

// A tiny model: two convolutions (one repeated), a relu, an add and a linear layer.
workload::Model tiny_model() {
  workload::Model m;
  m.name = "tiny <&> \"model\"";
  m.layers.push_back(workload::conv2d("conv1", 1, 8, 16, 16, 16, 3, 1, 1));
  m.layers.push_back(
      workload::nongemm("relu1", workload::OpKind::Activation, "relu", {1, 16, 16, 16}));
  m.layers.push_back(workload::conv2d("conv2", 1, 16, 16, 16, 16, 3, 1, 1));
  m.layers.push_back(workload::conv2d("conv3", 1, 16, 16, 16, 16, 3, 1, 1));
  m.layers.push_back(
      workload::nongemm("add", workload::OpKind::Elementwise, "add", {1, 16, 16, 16}, 2));
  m.layers.push_back(workload::fc("fc", 1, 64, 10));
  return m;
}

ReportOptions tiny_options() {
  ReportOptions o;
  o.model_spec = "tiny";
  o.hw_spec = "maestro-example";
  o.map_budget = 40;
  o.codesign_budget = 40;
  o.spmm_formats = {"csr"};
  o.spmm_sparsities = {0.5, 0.9};
  o.spmm_max_cols = 16;
  o.spmm_max_shapes = 2;
  o.spmm_min_ms = 0.2;
  return o;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

TEST(Report, NongemmStaticCountsElements) {
  const NongemmStatic s = compute_nongemm_static(tiny_model());
  EXPECT_EQ(s.gemm_layers, 4);
  EXPECT_EQ(s.nongemm_layers, 2);
  ASSERT_EQ(s.groups.size(), 2u);
  // add: 2 operands x 4,096 in + 4,096 out = 12,288; relu: 4,096 + 4,096 = 8,192.
  EXPECT_EQ(s.groups[0].name, "add");
  EXPECT_EQ(s.groups[0].kind, "elementwise");
  EXPECT_EQ(s.groups[0].elements, 12288);
  EXPECT_EQ(s.groups[1].name, "relu");
  EXPECT_EQ(s.groups[1].elements, 8192);
  EXPECT_EQ(s.nongemm_elements, 20480);
  // conv1: in 8x16x16 = 2,048, weights 16x8x9 = 1,152, out 4,096; conv2 and conv3: 4,096 +
  // 2,304 + 4,096 each; fc: 64 + 640 + 10 (+ 10 bias not counted as weights).
  const workload::Model m = tiny_model();
  int64_t want = 0;
  for (const auto& l : m.layers)
    if (workload::is_gemm_class(l.kind))
      want += l.input_elems() + l.weight_elems() + l.output_elems();
  EXPECT_EQ(s.gemm_elements, want);
  EXPECT_EQ(s.gemm_elements, 2048 + 1152 + 4096 + 2 * (4096 + 2304 + 4096) + 64 + 640 + 10);
}

TEST(Report, MappingsTotalsAddUp) {
  const ReportOptions o = tiny_options();
  const MappingsSection s = compute_mappings(tiny_model(), arch::preset("maestro-example"), o);
  ASSERT_EQ(s.layers.size(), 4u);  // GEMM-class only
  EXPECT_EQ(s.skipped, 2u);
  EXPECT_EQ(s.distinct, 3u);  // conv2 == conv3
  EXPECT_TRUE(s.layers[2].reused);
  int64_t cycles = 0;
  for (const auto& l : s.layers) {
    ASSERT_EQ(l.status, "ok") << l.name << ": " << l.reason;
    cycles += l.runtime_cycles;
    // Utilisation: MACs / (256 PEs x cycles), never above 100%.
    EXPECT_NEAR(l.utilisation_pct, 100.0 * l.macs / (256.0 * l.runtime_cycles), 1e-9);
    EXPECT_LE(l.utilisation_pct, 100.0);
  }
  EXPECT_EQ(s.runtime_cycles, cycles);
  EXPECT_EQ(s.layers[2].runtime_cycles, s.layers[1].runtime_cycles);
  EXPECT_EQ(s.macs, 16 * 8 * 9 * 256 + 2 * 16 * 16 * 9 * 256 + 640);
}

// The section's front is run_codesign's (same search), and every design on it is undominated.
TEST(Report, CodesignFrontMatchesRunCodesign) {
  const ReportOptions o = tiny_options();
  const arch::Arch hw = arch::preset("maestro-example");
  const workload::Model m = tiny_model();
  const CodesignSection s = compute_codesign(m, hw, o, 12345);
  dse::codesign::CodesignOptions co;
  const auto space = std::make_shared<dse::codesign::CodesignSpace>(m.layers, hw, co);
  dse::codesign::RunOptions ro;
  ro.budget = o.codesign_budget;
  ro.seed = o.seed;
  const dse::codesign::CodesignResult r = dse::codesign::run_codesign(space, ro);
  ASSERT_EQ(s.front.size(), r.pareto.size());
  for (size_t i = 0; i < s.front.size(); ++i) {
    EXPECT_DOUBLE_EQ(s.front[i].area_mm2, r.pareto[i].first);
    EXPECT_EQ(s.front[i].runtime_cycles, r.pareto[i].second);
  }
  EXPECT_EQ(s.best.runtime_cycles, r.design.runtime_cycles);
  EXPECT_EQ(s.best.pes, r.design.pes);
  EXPECT_EQ(s.samples, 40);
  EXPECT_EQ(static_cast<int64_t>(s.designs.size()) + s.infeasible <= 40, true);
  for (const auto& d : s.designs)
    for (const auto& f : s.front)
      EXPECT_FALSE(d.area_mm2 < f.area_mm2 && d.runtime_cycles < f.runtime_cycles);
  EXPECT_EQ(s.hw_runtime_cycles, 12345);
  EXPECT_DOUBLE_EQ(s.hw_area_mm2, arch::area_mm2(hw));
  EXPECT_EQ(s.platform, "edge");
}

TEST(Report, SpmmShapesAndSpeedups) {
  ReportOptions o = tiny_options();
  const SpmmSection s = compute_spmm(tiny_model(), o);
  // Weight shapes: conv1 16 x 72 (n 256), conv2/3 16 x 144 (n 256, two layers), fc 10 x 64
  // (n 1); the two with the most MACs are measured, n capped at 16.
  EXPECT_EQ(s.shapes_total, 3);
  EXPECT_EQ(s.shapes_measured, 2);
  ASSERT_EQ(s.rows.size(), 4u);  // 2 shapes x csr x 2 sparsities
  EXPECT_EQ(s.rows[0].layer, "conv2");
  EXPECT_EQ(s.rows[0].layers, 2);
  EXPECT_EQ(s.rows[0].m, 16);
  EXPECT_EQ(s.rows[0].k, 144);
  EXPECT_EQ(s.rows[0].n, 16);
  EXPECT_EQ(s.rows[0].n_full, 256);
  EXPECT_EQ(s.rows[2].layer, "conv1");
  // Magnitude pruning is exact to one entry: 16 x 144 x 0.9 = 2,073.6 -> 2,074 pruned.
  EXPECT_NEAR(s.rows[1].sparsity, 2074.0 / 2304.0, 1e-12);
  for (const auto& r : s.rows) {
    EXPECT_GT(r.ms, 0);
    EXPECT_GT(r.dense_ms, 0);
    EXPECT_DOUBLE_EQ(r.speedup, r.dense_ms / r.ms);
    EXPECT_LT(r.max_rel_err, 1e-4);
  }
  ASSERT_EQ(s.geomean.at("csr").size(), 2u);
  o.spmm_max_shapes = 0;
  EXPECT_TRUE(compute_spmm(tiny_model(), o).rows.empty());
}

TEST(Report, PageHasEverySectionAndEscapesUserText) {
  ReportOptions o = tiny_options();
  o.model_spec = "it's <b>.m";
  Report r = build_report(tiny_model(), arch::preset("maestro-example"), o);
  r.nongemm.why_absent = "built without <libtorch>";
  const std::string html = render_html(r);
  for (const char* id : {"section-summary", "section-mappings", "section-codesign",
                         "section-nongemm", "section-spmm"})
    EXPECT_EQ(count(html, std::string("id=\"") + id + "\""), 1u) << id;
  // Each of the four sections has at least one chart with drawn elements.
  // (Plain string search: std::regex recurses per character and overflows the stack on a page
  // this size under AddressSanitizer.)
  int with_svg = 0;
  const std::string open = "<section id=\"";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const size_t id_end = html.find('"', at + open.size());
    const size_t end = html.find("</section>", at);
    ASSERT_NE(id_end, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    const std::string id = html.substr(at + open.size(), id_end - at - open.size());
    const std::string body = html.substr(id_end, end - id_end);
    if (id == "section-summary") continue;
    EXPECT_NE(body.find("<svg"), std::string::npos) << id;
    EXPECT_GE(count(body, "<rect") + count(body, "<circle"), 3u) << id;
    EXPECT_NE(body.find("Reproduce: <code>"), std::string::npos) << id;
    ++with_svg;
  }
  EXPECT_EQ(with_svg, 4);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no resources
  EXPECT_EQ(html.find("tiny <&>"), std::string::npos);
  EXPECT_NE(html.find("tiny &lt;&amp;&gt; &quot;model&quot;"), std::string::npos);
  // The model file name is shell-quoted in the commands, then HTML-escaped.
  EXPECT_NE(html.find("--model &#39;it&#39;\\&#39;&#39;s &lt;b&gt;.m&#39;"), std::string::npos);
  EXPECT_NE(html.find("built without &lt;libtorch&gt;"), std::string::npos);
  const auto j = report_json(r);
  EXPECT_EQ(j["mappings"]["total"]["runtime_cycles"], r.mappings.runtime_cycles);
  EXPECT_EQ(j["codesign"]["pareto"].size(), r.codesign.front.size());
  EXPECT_EQ(j["spmm"]["results"].size(), r.spmm.rows.size());
  EXPECT_FALSE(j["nongemm"]["measured"]["available"]);
  for (const auto& line : [&] {
         std::vector<std::string> v;
         std::string t = summary_text(r), cur;
         for (char c : t)
           if (c == '\n')
             v.push_back(cur), cur.clear();
           else
             cur += c;
         return v;
       }())
    EXPECT_LE(line.size(), 120u) << line;
}

TEST(Report, ShellWord) {
  EXPECT_EQ(shell_word("resnet50"), "resnet50");
  EXPECT_EQ(shell_word("a/b-c_d.m"), "a/b-c_d.m");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("64,64,32;128,64,8"), "'64,64,32;128,64,8'");
}

TEST(Report, BadOptionsThrowInputError) {
  ReportOptions o = tiny_options();
  auto bad = [&](auto edit) {
    ReportOptions x = o;
    edit(x);
    EXPECT_THROW(check_options(x), InputError);
  };
  bad([](ReportOptions& x) { x.map_budget = 0; });
  bad([](ReportOptions& x) { x.codesign_budget = -1; });
  bad([](ReportOptions& x) { x.threads = 0; });
  bad([](ReportOptions& x) { x.platform = "moon"; });
  bad([](ReportOptions& x) { x.spmm_formats = {"csr", "bogus"}; });
  bad([](ReportOptions& x) { x.spmm_formats = {"dense"}; });
  bad([](ReportOptions& x) { x.spmm_formats = {}; });
  bad([](ReportOptions& x) { x.spmm_sparsities = {1.0}; });
  bad([](ReportOptions& x) { x.spmm_sparsities = {-0.1}; });
  bad([](ReportOptions& x) { x.spmm_max_cols = 0; });
  bad([](ReportOptions& x) { x.spmm_min_ms = 0; });
  EXPECT_NO_THROW(check_options(o));
  // A model without GEMM-class layers has nothing to co-design.
  workload::Model m;
  m.name = "relu only";
  m.layers.push_back(workload::nongemm("r", workload::OpKind::Activation, "relu", {1, 4}));
  EXPECT_THROW(build_report(m, arch::preset("maestro-example"), o), InputError);
}

}  // namespace
}  // namespace sparsemap::report
