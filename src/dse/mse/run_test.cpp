// The map-space-exploration study through the library: the run `golden_test.sh` holds
// (tests/e2e/golden/mse.json: ncf, gamma and random, budgets 20 and 40, 2 seeds) gives the same
// numbers, reports each run's start, and bad options are InputErrors before any search.
#include "sparsemap/dse/mse/run.h"

#include <gtest/gtest.h>

#include "support/error_of.h"

namespace sparsemap::dse::mse {
namespace {

using testing::error_of;

// Counts the reports that start a run (done 0) and keeps their labels.
class Starts : public search::Observer {
 public:
  void on_progress(const search::Progress& p) override {
    if (p.done == 0) labels.push_back(p.label);
  }
  std::vector<std::string> labels;
};

Options golden_options() {
  Options o;
  o.models = "ncf";
  o.algos = "gamma,random";
  o.budgets = "20,40";
  o.seeds = 2;
  return o;
}

TEST(MseRun, GoldenStudyNumbers) {
  Starts starts;
  const Result r = run(golden_options(), starts);
  ASSERT_TRUE(r.root);
  EXPECT_EQ(r.hw.name, "gamma-edge");
  ASSERT_EQ(r.layers.size(), 4u);
  const std::vector<std::string> names = {"mlp.0", "mlp.1", "mlp.2", "final"};
  const std::vector<double> best = {496, 257, 65, 2};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.layers[i].name, names[i]);
    EXPECT_EQ(r.layer_model[i], "ncf");
    EXPECT_EQ(r.best[i], best[i]);
  }
  ASSERT_EQ(r.rows.size(), 4u);
  for (const Row& row : r.rows) {
    const bool small = row.budget == 20;
    EXPECT_DOUBLE_EQ(row.geomean, small ? 1.0718698532477045 : 1.0042213748125313) << row.algo;
    EXPECT_EQ(row.median_samples, 7.0);
    EXPECT_EQ(row.reached_pct, small ? 75.0 : 100.0);
    EXPECT_EQ(row.points, curve_points(row.budget));
  }
  EXPECT_EQ(r.rows[0].algo, "gamma");
  EXPECT_EQ(r.rows[3].algo, "random");
  // 2 algorithms x 2 budgets x 2 seeds, each announced once, seeds from --seed (1) on.
  ASSERT_EQ(starts.labels.size(), 8u);
  EXPECT_EQ(starts.labels[0], "gamma budget 20 seed 1");
  EXPECT_EQ(starts.labels[7], "random budget 40 seed 2");

  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["results"][1]["samples_run"], 40);
  EXPECT_EQ(j["layers"][0]["best"], 496.0);
  EXPECT_EQ(j["models"], nlohmann::json::array({"ncf"}));
}

TEST(MseRun, CurvePointsEndAtTheBudget) {
  const std::vector<int64_t> p = curve_points(20);
  EXPECT_EQ(p.front(), 1);
  EXPECT_EQ(p.back(), 20);
  for (size_t i = 1; i < p.size(); ++i) EXPECT_GT(p[i], p[i - 1]);
}

TEST(MseRun, BadOptionsAreInputErrors) {
  search::Observer quiet;
  Options o = golden_options();
  o.budgets = "20,0";
  EXPECT_NE(error_of([&] { run(o, quiet); }).find("expected positive sample counts"),
            std::string::npos);
  o = golden_options();
  o.budgets = "twenty";
  EXPECT_NE(error_of([&] { run(o, quiet); }).find("expected a comma list of sample counts"),
            std::string::npos);
  o = golden_options();
  o.seeds = 0;
  EXPECT_NE(error_of([&] { run(o, quiet); }).find("expected at least 1 seed"), std::string::npos);
  o = golden_options();
  o.plot = "curves.pdf";
  EXPECT_NE(error_of([&] { run(o, quiet); }).find("expected a .png or .svg file name"),
            std::string::npos);
  o = golden_options();
  o.algos = "gamma,nosuch";
  EXPECT_NE(error_of([&] { run(o, quiet); }), "no error");
}

}  // namespace
}  // namespace sparsemap::dse::mse
