// dse::schedule::run on MAGMA's batch_mix insts0 job table: the numbers of the golden JSON of
// `sparsemap schedule --job-table ... --bw 1 --budget 200 --seed 4` (tests/e2e/golden), the
// progress it reports, and bad options as InputError.
#include "sparsemap/dse/schedule/run.h"

#include <gtest/gtest.h>

#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::dse::schedule {
namespace {

Options golden_options() {
  Options o;
  o.job_table =
      std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/magma/jobtable_batch_mix-insts0.csv";
  o.bw = 1;
  o.budget = 200;
  o.seed = 4;
  return o;
}

struct Recorder : search::Observer {
  std::vector<search::Progress> seen;
  int done = 0;
  void on_progress(const search::Progress& p) override { seen.push_back(p); }
  void on_search_done() override { ++done; }
};

TEST(ScheduleRun, GoldenNumbers) {
  Recorder obs;
  const Result r = run(golden_options(), obs);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].name, "gsharp");
  EXPECT_EQ(r.table.num_jobs, 100);
  EXPECT_EQ(r.table.num_cores, 4);
  EXPECT_EQ(r.cost_model_evaluations, 0);
  EXPECT_DOUBLE_EQ(r.lower_bound_cycles, 1871853.5);
  EXPECT_DOUBLE_EQ(r.detail.makespan_cycles, 2167951.7739435667);
  EXPECT_EQ(r.runs[0].result.evaluations, 200);
  EXPECT_EQ(r.heuristics.size(), 23u);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["algo"], "gsharp");
  EXPECT_DOUBLE_EQ(j["makespan_cycles"].get<double>(), 2167951.7739435667);
  EXPECT_DOUBLE_EQ(j["heuristics"]["herald"].get<double>(), 2498032.748505717);
  EXPECT_DOUBLE_EQ(j["heuristics"]["FCFS-GREEDY"].get<double>(), 2557431.8205840983);
  EXPECT_DOUBLE_EQ(j["bw_utilisation_pct"].get<double>(), 16.02118559737631);
  EXPECT_EQ(j["cores"].size(), 4u);
  EXPECT_EQ(j["bw_over_time"].size(), 100u);
  EXPECT_EQ(j["schedule"]["core"][0], 2);
  // G# reports after each generation, labelled with the algorithm, up to the budget.
  ASSERT_FALSE(obs.seen.empty());
  EXPECT_EQ(obs.seen.back().label, "gsharp");
  EXPECT_EQ(obs.seen.back().total, 200);
  EXPECT_LE(obs.seen.back().done, 200);
  EXPECT_EQ(obs.done, 1);
}

TEST(ScheduleRun, HeuristicAsAlgorithm) {
  Options o = golden_options();
  o.algo = "herald";
  search::Observer quiet;
  const Result r = run(o, quiet);
  EXPECT_DOUBLE_EQ(r.runs[0].result.makespan_cycles, 2498032.748505717);
  EXPECT_EQ(r.runs[0].result.evaluations, 1);
}

TEST(ScheduleRun, BadInputIsInputError) {
  search::Observer quiet;
  Options o = golden_options();
  o.bw = 0;
  EXPECT_THROW(run(o, quiet), InputError);
  o = golden_options();
  o.algo = "magic";
  EXPECT_THROW(run(o, quiet), InputError);
  o = golden_options();
  o.jobs = "mix";  // with a job table
  EXPECT_THROW(run(o, quiet), InputError);
  o = golden_options();
  o.init = "sorted";
  EXPECT_THROW(run(o, quiet), InputError);
  o = golden_options();
  o.job_table = "no-such-table.csv";
  EXPECT_THROW(run(o, quiet), InputError);
}

// A cancelling observer stops G# (Cancelled), as Ctrl-C does from Python.
TEST(ScheduleRun, CancelledByTheObserver) {
  struct Stop : search::Observer {
    bool cancelled() override { return true; }
  } stop;
  EXPECT_THROW(run(golden_options(), stop), search::Cancelled);
}

}  // namespace
}  // namespace sparsemap::dse::schedule
