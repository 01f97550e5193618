// Tests of the split, the horizons and the report formats, on hand-made profiles.
#include "sparsemap/ml/nongemm/report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"

namespace sparsemap::ml::nongemm {
namespace {

// 60 ms of GEMM (10 of them attention), 20 ms activation, 15 ms softmax, 5 ms unnamed.
Profile sample() {
  const Taxonomy& t = Taxonomy::builtin();
  Profile p;
  p.run.model = "resnet50";
  p.run.batch = 1;
  p.run.image_h = p.run.image_w = 224;
  p.threads = 2;
  p.wall_ms = {101.0, 99.0};
  p.ops_ms = {100.0, 100.0};
  p.ops = {{"aten::linear", t.classify("aten::linear"), 10, 50},
           {"aten::relu_", t.classify("aten::relu_"), 10, 20},
           {"aten::softmax", t.classify("aten::softmax"), 2, 15},
           {"aten::matmul", t.classify("aten::matmul"), 4, 10},
           {"aten::mystery", t.classify("aten::mystery"), 1, 5}};
  return p;
}

std::string fmt_pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

TEST(Split, GroupsAndPercentages) {
  const Split s = split_profile(sample());
  EXPECT_DOUBLE_EQ(s.total_ms, 100);
  EXPECT_DOUBLE_EQ(s.gemm_ms, 60);
  EXPECT_DOUBLE_EQ(s.attention_ms, 10);
  EXPECT_DOUBLE_EQ(s.gemm_pct(), 60);
  EXPECT_DOUBLE_EQ(s.nongemm_pct(), 40);
  EXPECT_DOUBLE_EQ(s.group_ms.at("activation"), 20);
  EXPECT_DOUBLE_EQ(s.group_ms.at("logit"), 15);
  EXPECT_DOUBLE_EQ(s.group_ms.at("other"), 5);
  EXPECT_DOUBLE_EQ(s.group_ms.at("roi"), 0);
  EXPECT_EQ(s.group_ms.size(), nongemm_groups().size());
  EXPECT_DOUBLE_EQ(sample().unknown_pct(), 5);
  EXPECT_DOUBLE_EQ(sample().coverage_pct(), 100);
}

TEST(Statistic, CombinesRuns) {
  EXPECT_DOUBLE_EQ(combine(Statistic::Mean, {1, 2, 9}), 4);
  EXPECT_DOUBLE_EQ(combine(Statistic::Median, {9, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(combine(Statistic::Median, {4, 1, 2, 9}), 3);
  EXPECT_DOUBLE_EQ(combine(Statistic::Min, {4, 1, 2}), 1);
  EXPECT_DOUBLE_EQ(combine(Statistic::Median, {}), 0);
  EXPECT_EQ(parse_statistic("median"), Statistic::Median);
  EXPECT_EQ(statistic_name(Statistic::Min), "min");
  EXPECT_THROW(parse_statistic("average"), InputError);
  Profile p = sample();
  p.statistic = Statistic::Min;
  EXPECT_DOUBLE_EQ(p.typical_wall_ms(), 99);
  EXPECT_NEAR(p.coverage_pct(), 100.0 * 100 / 99, 1e-9);
}

TEST(Split, Horizon) {
  // GEMMs 10x faster: 6 ms GEMM + 40 ms NonGEMM.
  const Split s10 = split_profile(sample(), 10);
  EXPECT_DOUBLE_EQ(s10.total_ms, 46);
  EXPECT_NEAR(s10.nongemm_pct(), 100.0 * 40 / 46, 1e-9);
  const Split s100 = split_profile(sample(), 100);
  EXPECT_NEAR(s100.nongemm_pct(), 100.0 * 40 / 40.6, 1e-9);
  EXPECT_GT(s100.nongemm_pct(), s10.nongemm_pct());
  const Split hw = split_with_gemm_ms(sample(), 30);
  EXPECT_DOUBLE_EQ(hw.total_ms, 70);
  EXPECT_DOUBLE_EQ(hw.attention_ms, 5);
}

TEST(Report, JsonContract) {
  const nlohmann::json j = profile_json(sample(), {10, 100});
  EXPECT_EQ(j["model"], "resnet50");
  EXPECT_EQ(j["batch"], 1);
  EXPECT_DOUBLE_EQ(j["gemm_pct"].get<double>(), 60);
  EXPECT_DOUBLE_EQ(j["nongemm_pct"].get<double>(), 40);
  EXPECT_DOUBLE_EQ(j["groups"]["activation"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["groups"]["other"].get<double>(), 5);
  EXPECT_FALSE(j["groups"].contains("gemm"));
  EXPECT_EQ(j["groups"].size(), 11u);
  ASSERT_EQ(j["ops"].size(), 5u);
  EXPECT_EQ(j["ops"][0]["name"], "aten::linear");
  EXPECT_EQ(j["ops"][0]["group"], "gemm");
  EXPECT_EQ(j["ops"][0]["calls"], 10);
  EXPECT_DOUBLE_EQ(j["ops"][0]["ms"].get<double>(), 50);
  EXPECT_EQ(j["unknown_ops"], nlohmann::json::array({"aten::mystery"}));
  ASSERT_EQ(j["horizon"].size(), 2u);
  EXPECT_EQ(j["horizon"][1]["gemm_speedup"], 100);
  EXPECT_NEAR(j["horizon"][0]["nongemm_pct"].get<double>(), 100.0 * 40 / 46, 1e-9);
  EXPECT_FALSE(j.contains("hw"));
  const std::string text = profile_text(sample(), {10});
  EXPECT_NE(text.find("aten::mystery"), std::string::npos);
  EXPECT_NE(text.find("GEMM x10"), std::string::npos);
  EXPECT_NE(suite_text({sample()}, {10, 100}).find("activation 20.0"), std::string::npos);
}

TEST(Report, HwHorizonUsesTheCostModel) {
  Profile p = sample();
  const workload::Layer l = workload::gemm("aten::linear", 128, 768, 768);
  p.gemm_calls = {{"aten::linear", l, 10, 50}};
  const HwHorizon h = hw_horizon(p, "maestro-example", "kcp_ws");
  const arch::Arch a = arch::preset("maestro-example");
  const cost::Cost c = cost::evaluate(l, a, cost::dataflow_mapping("kcp_ws", l, a.num_pes));
  ASSERT_TRUE(c.ok()) << c.reason;
  // 10 calls at the modelled runtime; the matmul (10 ms) had no shape and keeps its time.
  const double modelled = 10 * static_cast<double>(c.runtime_cycles) / (a.clock_mhz * 1e3);
  EXPECT_NEAR(h.modelled_gemm_ms, modelled + 10, 1e-9);
  EXPECT_DOUBLE_EQ(h.measured_gemm_ms, 60);
  EXPECT_EQ(h.shapes, 1);
  EXPECT_EQ(h.failed, 0);
  EXPECT_DOUBLE_EQ(h.split.nongemm_ms(), 40);
  const HwHorizon best = hw_horizon(p, "maestro-example", "best");
  EXPECT_LE(best.modelled_gemm_ms, h.modelled_gemm_ms);
  EXPECT_THROW(hw_horizon(p, "no-such-arch", "best"), InputError);
  EXPECT_THROW(hw_horizon(p, "maestro-example", "no-such-dataflow"), InputError);
  const nlohmann::json j = profile_json(p, {}, h);
  EXPECT_EQ(j["hw"]["arch"], "maestro-example");
  EXPECT_GT(j["hw"]["gemm_speedup"].get<double>(), 0);
  // The suite table's accelerator columns: NonGEMM share and measured/modelled GEMM time.
  const std::string table = suite_text({p}, {10}, {h});
  EXPECT_NE(table.find("NG % @hw"), std::string::npos) << table;
  EXPECT_NE(table.find("maestro-example"), std::string::npos) << table;
  EXPECT_NE(table.find(fmt_pct(h.split.nongemm_pct())), std::string::npos) << table;
}

// With --hw, the plot has the accelerator's horizon bar too (one per model), as the table does.
TEST(Report, PlotHasTheHwHorizonBar) {
  Profile p = sample();
  p.gemm_calls = {{"aten::linear", workload::gemm("aten::linear", 128, 768, 768), 10, 50}};
  const HwHorizon h = hw_horizon(p, "maestro-example", "kcp_ws");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nongemm_hw_plot_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  try {
    write_group_plot({p}, {10}, (dir / "groups.svg").string(), {h});
  } catch (const InputError&) {  // no gnuplot here: the data is written first all the same
  }
  std::ifstream in(dir / "groups.svg.csv");  // named after the whole plot path
  std::vector<std::string> bars;
  for (std::string line; std::getline(in, line);) bars.push_back(line.substr(0, line.find(',')));
  std::filesystem::remove_all(dir);
  const std::string model = p.run.model;
  EXPECT_EQ(bars,
            (std::vector<std::string>{"bar", model, model + " x10", model + " @maestro-example"}));
}

TEST(Report, ChromeTrace) {
  Profile p = sample();
  p.trace = {{"inference", "", -1, 0, 100}, {"aten::linear", "gemm", 0, 1.5, 20}};
  const nlohmann::json t = chrome_trace(p);
  ASSERT_GE(t["traceEvents"].size(), 2u);
  EXPECT_EQ(t["traceEvents"][1]["name"], "aten::linear");
  EXPECT_EQ(t["traceEvents"][1]["ph"], "X");
  EXPECT_DOUBLE_EQ(t["traceEvents"][1]["ts"].get<double>(), 1.5);
  EXPECT_EQ(t["traceEvents"][1]["cat"], "gemm");
}

TEST(Report, PlotWritesDataAndFailsClearlyWithoutGnuplot) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nongemm_plot_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string svg = (dir / "groups.svg").string();
  EXPECT_THROW(write_group_plot({sample()}, {}, (dir / "groups.pdf").string()), InputError);
  // Without gnuplot on PATH: one clear error, and the data is there.
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  try {
    write_group_plot({sample()}, {10}, svg);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "gnuplot is not installed (Debian gnuplot-nox); the data is in "),
              std::string::npos);
  }
  setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(std::filesystem::exists(dir / "groups.svg.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "groups.svg.gp"));
  EXPECT_FALSE(std::filesystem::exists(dir / "groups.csv"));  // never the plot's stem
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
    write_group_plot({sample()}, {10}, svg);
    EXPECT_GT(std::filesystem::file_size(svg), 1000u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sparsemap::ml::nongemm
