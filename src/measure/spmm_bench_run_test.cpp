// spmm_bench::plan / run / to_json / break_even on a tiny shape: what is deterministic (rows,
// formats, sparsities, stored values, errors, counts, the JSON's keys), never a timing.
#include "sparsemap/measure/spmm_bench_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "support/error_of.h"

namespace sparsemap::measure::spmm_bench {
namespace {

using sparsemap::testing::error_of;

struct Recorder : search::Observer {
  bool stop = false;
  int done_calls = 0;
  std::vector<std::string> notes;
  std::vector<search::Progress> progress;
  void on_note(const std::string& t) override { notes.push_back(t); }
  void on_progress(const search::Progress& p) override { progress.push_back(p); }
  void on_search_done() override { ++done_calls; }
  bool stop_requested() override { return stop; }
};

Options tiny() {
  Options o;
  o.shapes = "32,64,16";
  o.formats = "csr,nm:2:4,cvse:8";
  o.sparsity = "0.5,0.75";
  o.threads = 1;
  o.min_ms = 0.1;
  o.min_reps = 1;
  return o;
}

TEST(MeasureRun, spmm_bench_break_even_hand_worked) {
  EXPECT_EQ(break_even({}), -1.0);
  EXPECT_EQ(break_even({{0.5, 0.9}, {0.7, 0.8}}), -1.0);
  EXPECT_EQ(break_even({{0.5, 1.2}, {0.7, 3.0}}), 0.5);  // wins everywhere: the lowest
  // log(0.5) .. log(2): 1 halfway, at 0.6.
  EXPECT_NEAR(break_even({{0.5, 0.5}, {0.7, 2.0}}), 0.6, 1e-12);
  // A win at 0.5 lost at 0.7 does not count: the crossing is between 0.7 and 0.9.
  EXPECT_NEAR(break_even({{0.5, 2.0}, {0.7, 0.5}, {0.9, 2.0}}), 0.8, 1e-12);
}

TEST(MeasureRun, spmm_bench_tiny_shape_rows_and_summary) {
  Recorder obs;
  const Result r = run(tiny(), obs);
  EXPECT_EQ(r.threads, 1);
  ASSERT_EQ(r.dense.size(), 1u);
  EXPECT_EQ(r.dense[0].shape.m, 32);
  // csr at 0.5 and 0.75, nm:2:4 at its own 0.5 only, cvse:8 at 0.5 and 0.75.
  ASSERT_EQ(r.rows.size(), 5u);
  const char* spec[] = {"csr", "csr", "nm:2:4", "cvse:8", "cvse:8"};
  const double target[] = {0.5, 0.75, 0.5, 0.5, 0.75};
  // 32 x 64 = 2048 weights: 1024 kept at 50%, 512 at 75% (masks are exact).
  const int64_t stored[] = {1024, 512, 1024, 1024, 512};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.rows[i].spec.str(), spec[i]);
    EXPECT_EQ(r.rows[i].target, target[i]);
    EXPECT_EQ(r.rows[i].sparsity, target[i]);
    EXPECT_EQ(r.rows[i].stored, stored[i]);
    EXPECT_GT(r.rows[i].footprint, 4 * stored[i]);  // values plus their coordinates
    EXPECT_LT(r.rows[i].max_err, 1e-4);
  }
  ASSERT_EQ(r.summary.size(), 3u);
  EXPECT_EQ(r.summary[0].geomean.size(), 2u);
  EXPECT_EQ(r.summary[1].geomean.size(), 1u);
  EXPECT_EQ(r.summary[1].geomean[0].sparsity, 0.5);
  EXPECT_EQ(r.summary[2].geomean[1].shapes, 1u);
  // A progress report before the dense run and before each of the 5 kernels.
  ASSERT_EQ(obs.progress.size(), 6u);
  EXPECT_EQ(obs.progress[0].label, "32x64x16 dense");
  EXPECT_EQ(obs.progress[3].label, "32x64x16 nm:2:4 at 50%");
  EXPECT_EQ(obs.progress[5].done, 4);
  EXPECT_EQ(obs.progress[5].total, 5);
  EXPECT_EQ(obs.done_calls, 1);
  ASSERT_EQ(obs.notes.size(), 1u);
  EXPECT_EQ(obs.notes[0].rfind("  32x64x16 (", 0), 0u) << obs.notes[0];
}

TEST(MeasureRun, spmm_bench_to_json_keys_and_rows) {
  Recorder obs;
  Options o = tiny();
  o.stat = "min";
  const nlohmann::json j = to_json(run(o, obs));
  std::set<std::string> keys;
  for (const auto& [k, _] : j.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"threads", "stat", "isa", "openblas_core",
                                         "openblas_config", "openblas_coretype_env",
                                         "dense_geomean_gflops", "dense", "summary", "results"}));
  EXPECT_EQ(j["stat"], "min");
  ASSERT_EQ(j["results"].size(), 5u);
  EXPECT_EQ(j["results"][0]["format"], "csr");
  EXPECT_FALSE(j["results"][0].contains("v"));
  EXPECT_EQ(j["results"][2]["format"], "nm");
  EXPECT_EQ(j["results"][2]["n"], 2);
  EXPECT_EQ(j["results"][2]["m"], 4);
  EXPECT_EQ(j["results"][4]["v"], 8);
  EXPECT_EQ(j["results"][4]["stored_values"], 512);
  // With --stat min, ms is the minimum.
  EXPECT_EQ(j["results"][4]["ms"], j["results"][4]["min_ms"]);
  ASSERT_EQ(j["summary"].size(), 3u);
  EXPECT_EQ(j["summary"][2]["spec"], "cvse:8");
  EXPECT_EQ(j["dense"][0]["name"], j["results"][0]["shape"]);
}

TEST(MeasureRun, spmm_bench_bad_options_and_cancel) {
  auto with = [](auto change) {
    Options o = tiny();
    change(o);
    return error_of([&] { plan(o); });
  };
  EXPECT_EQ(with([](Options& o) { o.sparsity = "0.5,2"; }),
            "<flag --sparsity>: '2' is not a sparsity in [0, 1]");
  EXPECT_EQ(with([](Options& o) { o.sparsity = ","; }), "<flag --sparsity>: no sparsity given");
  EXPECT_EQ(with([](Options& o) { o.formats = ","; }), "<flag --formats>: no format given");
  EXPECT_EQ(with([](Options& o) { o.threads = -1; }), "<flag --threads>: must be >= 0");
  EXPECT_NE(with([](Options& o) { o.formats = "cvse:3"; }).find("V must be 1, 2, 4, 8, 16 or 32"),
            std::string::npos);
  Recorder obs;
  obs.stop = true;
  EXPECT_THROW(run(tiny(), obs), search::Cancelled);
  EXPECT_TRUE(obs.progress.empty());
}

}  // namespace
}  // namespace sparsemap::measure::spmm_bench
