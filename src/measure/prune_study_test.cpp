// prune_study::plan / run / to_json on a tiny shape: what is deterministic (shapes, points,
// formats, errors, counts, the JSON's keys), never a timing; bad options; cancellation.
#include "sparsemap/measure/prune_study.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/error_of.h"
#include "support/temp_dir.h"

namespace sparsemap::measure::prune_study {
namespace {

using sparsemap::testing::error_of;

// Records what run() reports; stops before the first shape when `stop` is set.
struct Recorder : search::Observer {
  bool stop = false;
  std::vector<std::string> notes;
  std::vector<search::Progress> progress;
  void on_note(const std::string& t) override { notes.push_back(t); }
  void on_progress(const search::Progress& p) override { progress.push_back(p); }
  bool stop_requested() override { return stop; }
};

Options tiny() {
  Options o;
  o.shapes = "32,64,16";
  o.vs = "4,1";  // 1 (unstructured) is always run: dropped from the V's
  o.sparsity = "0.5,0.75";
  o.threads = 1;
  o.min_ms = 0.1;
  return o;
}

TEST(MeasureRun, prune_study_tiny_shape_points_and_summary) {
  Recorder obs;
  const Result r = run(tiny(), obs);
  ASSERT_EQ(r.shapes.size(), 1u);
  EXPECT_EQ(r.shapes[0].m, 32);
  EXPECT_EQ(r.shapes[0].k, 64);
  EXPECT_EQ(r.shapes[0].n, 16);
  EXPECT_EQ(r.vs, std::vector<int>{4});
  EXPECT_EQ(r.threads, 1);
  // Per sparsity: V = 1 then V = 4.
  ASSERT_EQ(r.points.size(), 4u);
  const double s[] = {0.5, 0.5, 0.75, 0.75};
  const int v[] = {1, 4, 1, 4};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.points[i].sparsity, s[i]);
    EXPECT_EQ(r.points[i].v, v[i]);
    EXPECT_GT(r.points[i].rel_error, 0.0);
    EXPECT_LT(r.points[i].rel_error, 1.0);
  }
  // Magnitude pruning drops the smallest weights: no structured mask loses less, and more
  // pruning loses more.
  EXPECT_LE(r.points[0].rel_error, r.points[1].rel_error);
  EXPECT_LE(r.points[2].rel_error, r.points[3].rel_error);
  EXPECT_LT(r.points[0].rel_error, r.points[2].rel_error);
  ASSERT_EQ(r.summary.size(), 2u);
  for (const SparsitySummary& sum : r.summary) {
    EXPECT_EQ(sum.geomean_speedup.size(), 2u);  // V = 1 and 4
    EXPECT_EQ(sum.best_v, 4);                   // the only V
    ASSERT_EQ(sum.adaptive.size(), 1u);
    EXPECT_EQ(sum.histogram.at(sum.adaptive[0].v), 1);
  }
  ASSERT_EQ(obs.notes.size(), 1u);
  EXPECT_EQ(obs.notes[0].rfind("  32x64x16: dense ", 0), 0u) << obs.notes[0];
  ASSERT_EQ(obs.progress.size(), 1u);
  EXPECT_EQ(obs.progress[0].done, 1);
  EXPECT_EQ(obs.progress[0].total, 1);
}

TEST(MeasureRun, prune_study_to_json_keys_and_points) {
  Recorder obs;
  const nlohmann::json j = to_json(run(tiny(), obs));
  std::set<std::string> keys;
  for (const auto& [k, _] : j.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"threads", "isa", "openblas_core", "budget", "summary",
                                         "results"}));
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["budget"], 0.1);
  ASSERT_EQ(j["results"].size(), 4u);
  EXPECT_EQ(j["results"][0]["format"], "csr");
  EXPECT_EQ(j["results"][0]["pruning"], "unstructured");
  EXPECT_EQ(j["results"][1]["format"], "cvse");
  EXPECT_EQ(j["results"][1]["pruning"], "column_vector");
  EXPECT_EQ(j["results"][1]["v"], 4);
  EXPECT_EQ(j["results"][3]["M"], 32);
  EXPECT_EQ(j["results"][3]["K"], 64);
  EXPECT_EQ(j["results"][3]["N"], 16);
  EXPECT_EQ(j["results"][3]["sparsity"], 0.75);
  // An unstructured point's speedup over itself is 1 exactly.
  EXPECT_EQ(j["results"][2]["speedup_vs_unstructured"], 1.0);
  ASSERT_EQ(j["summary"].size(), 2u);
  EXPECT_EQ(j["summary"][1]["sparsity"], 0.75);
  EXPECT_EQ(j["summary"][1]["adaptive_budget"], 0.1);
  EXPECT_EQ(j["summary"][1]["adaptive"].size(), 1u);
  EXPECT_TRUE(j["summary"][0]["geomean_speedup_vs_dense"].contains("unstructured"));
  EXPECT_TRUE(j["summary"][0]["geomean_speedup_vs_dense"].contains("v4"));
}

TEST(MeasureRun, prune_study_weights_file_hand_worked_errors) {
  // 4 x 4, column-major 1..16: column j holds 4j+1 .. 4j+4.
  sparsemap::testing::TempDir dir("prune_study");
  std::string text = "%%MatrixMarket matrix array real general\n4 4\n";
  for (int i = 1; i <= 16; ++i) text += std::to_string(i) + "\n";
  Options o = tiny();
  o.weights = dir.write("w.mtx", text);
  o.n = 2;
  o.vs = "4";
  o.sparsity = "0.5";
  Recorder obs;
  const Result r = run(o, obs);
  ASSERT_EQ(r.shapes.size(), 1u);
  EXPECT_EQ(r.shapes[0].m, 4);
  EXPECT_EQ(r.shapes[0].k, 4);
  EXPECT_EQ(r.shapes[0].n, 2);
  EXPECT_EQ(r.shapes[0].name, o.weights);
  // Both prunings drop 1..8 (unstructured: the 8 smallest; V = 4: columns 0 and 1, the
  // smallest norms): error sqrt(1^2 + ... + 8^2) / sqrt(1^2 + ... + 16^2) = sqrt(204 / 1496).
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_NEAR(r.points[0].rel_error, std::sqrt(204.0 / 1496.0), 1e-6);
  EXPECT_NEAR(r.points[1].rel_error, std::sqrt(204.0 / 1496.0), 1e-6);
  EXPECT_EQ(r.summary[0].adaptive_error_ratio_geomean, 1.0);
  o.n = 0;
  EXPECT_EQ(error_of([&] { plan(o); }), "<flag --n>: must be >= 1");
}

TEST(MeasureRun, prune_study_plot_writes_its_data_then_refuses_other_extensions) {
  sparsemap::testing::TempDir dir("prune_study");
  Recorder obs;
  Result r = run(tiny(), obs);
  write_plot(r);  // no plot named: nothing (not even ".dat")
  EXPECT_FALSE(std::filesystem::exists(".dat"));
  r.options.plot = (dir.path / "p.pdf").string();
  EXPECT_EQ(error_of([&] { write_plot(r); }), "<flag --plot>: expected a .png or .svg file name");
  std::ifstream data(r.options.plot + ".dat");
  std::string header, line;
  std::getline(data, header);
  EXPECT_EQ(header, "# sparsity unstructured V=4");
  int rows = 0;
  while (std::getline(data, line)) ++rows;
  EXPECT_EQ(rows, 2);  // one per sparsity
}

TEST(MeasureRun, prune_study_bad_options_are_the_commands_errors) {
  auto with = [](auto change) {
    Options o = tiny();
    change(o);
    return error_of([&] { plan(o); });
  };
  EXPECT_EQ(with([](Options& o) { o.vs = "3"; }),
            "<flag --v>: V must be 1, 2, 4, 8, 16 or 32, got 3");
  EXPECT_EQ(with([](Options& o) { o.vs = "4,x"; }), "<flag --v>: 'x' is not a number");
  EXPECT_EQ(with([](Options& o) { o.sparsity = ",,"; }), "<flag --sparsity>: empty list");
  EXPECT_EQ(with([](Options& o) { o.sparsity = "1.5"; }), "<flag --sparsity>: must be in [0, 1]");
  EXPECT_EQ(with([](Options& o) { o.budget = -1; }), "<flag --budget>: must be >= 0");
  EXPECT_EQ(with([](Options& o) { o.threads = -2; }), "<flag --threads>: must be >= 0");
  EXPECT_EQ(with([](Options& o) { o.weights = "w.txt"; }), "w.txt: expected a .npy or .mtx file");
}

TEST(MeasureRun, prune_study_stops_before_a_shape_when_asked) {
  Recorder obs;
  obs.stop = true;
  EXPECT_THROW(run(tiny(), obs), search::Cancelled);
  EXPECT_TRUE(obs.notes.empty());
}

TEST(MeasureRun, prune_study_option_table_is_the_commands_flags_in_order) {
  std::vector<std::string> flags;
  for (const auto& row : option_table()) flags.push_back(row.flag);
  EXPECT_EQ(flags, (std::vector<std::string>{"--shapes", "--weights", "--n", "--v", "--sparsity",
                                             "--budget", "--threads", "--seed", "--min-ms",
                                             "--json", "--plot"}));
}

}  // namespace
}  // namespace sparsemap::measure::prune_study
