// `map` and `codesign` on a Timeloop architecture as library calls (run.h): the numbers the CLI
// prints for the same options, progress, and bad options.
#include "sparsemap/dse/timeloop/run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "sparsemap/error.h"
#include "support/test_data.h"

namespace sparsemap::dse::timeloop {
namespace {

std::string eyeriss() {
  return testing::test_data_dir("timeloop") +
         "/example_designs/eyeriss_like/parsed-processed-input.yaml";
}

struct Counting : search::Observer {
  int64_t reports = 0, last_done = 0, last_total = 0;
  void on_progress(const search::Progress& p) override {
    ++reports;
    last_done = p.done;
    last_total = p.total;
  }
};

// `sparsemap map --hw eyeriss_like/parsed-processed-input.yaml --budget 300 --seed 2`: the
// architecture file's own problem, its optimization metric (EDP), the ERT beside it.
TEST(TimeloopRun, MapIsTheCommandsResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  MapOptions o;
  o.hw = eyeriss();
  o.budget = 300;
  o.seed = 2;
  Counting progress;
  const MapResult r = run_map(o, progress);
  ASSERT_EQ(r.network.rows.size(), 1u);
  EXPECT_EQ(r.model_name, "conv2D");
  EXPECT_EQ(r.network.cycles, 64512);
  EXPECT_DOUBLE_EQ(r.network.energy_pj, 56263601.884453006);
  EXPECT_EQ(r.network.evaluations, 300);
  EXPECT_EQ(metrics_text(r.metrics), "edp");
  EXPECT_GT(progress.reports, 0);
  EXPECT_EQ(progress.last_done, 300);
  EXPECT_EQ(progress.last_total, 300);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["budget"], 300);
  EXPECT_EQ(j["arch"], eyeriss());
  EXPECT_EQ(j["total"]["cycles"], 64512);
}

// `sparsemap codesign --hw eyeriss_like/... --model layer_shapes/resnet18 --area-budget-mm2 1
// --budget 4 --map-budget 30 --final-budget 60 --seed 3`.
TEST(TimeloopRun, CodesignIsTheCommandsResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  CodesignRunOptions o;
  o.hw = eyeriss();
  o.model = dir + "/layer_shapes/resnet18";
  o.area_budget_mm2 = 1.0;
  o.budget = 4;
  o.map_budget = 30;
  o.final_budget = 60;
  o.seed = 3;
  Counting progress;
  const CodesignRunResult r = run_codesign(o, progress);
  EXPECT_EQ(r.codesign.designs, 4);
  EXPECT_EQ(r.codesign.feasible, 3);
  EXPECT_EQ(r.codesign.evaluations, 2520);
  EXPECT_DOUBLE_EQ(r.codesign.best.area_um2, 652850.4944940001);
  EXPECT_EQ(r.codesign.best_network.cycles, 14136928);
  EXPECT_EQ(r.codesign.base_network.cycles, 24675072);
  EXPECT_EQ(progress.last_done, 4);
  EXPECT_EQ(to_json(r)["best"]["levels"].size(), 6u);
}

struct Stopping : search::Observer {
  bool cancelled() override { return true; }
};

TEST(TimeloopRun, StopsWhenTheObserverAsks) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  MapOptions o;
  o.hw = eyeriss();
  o.budget = 300;
  Stopping stop;
  EXPECT_THROW(run_map(o, stop), search::Cancelled);
}

TEST(TimeloopRun, BadOptionsAreInputErrors) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  search::Observer quiet;
  MapOptions o;
  o.hw = eyeriss();
  o.checkpoint = "a.ckpt";
  o.resume = "b.ckpt";
  EXPECT_THROW(run_map(o, quiet), InputError);
  o = MapOptions{};
  o.hw = eyeriss();
  o.objective = "speed";
  EXPECT_THROW(run_map(o, quiet), InputError);
  o.objective = "";
  o.model = dir + "/no-such-folder.yaml";
  EXPECT_THROW(run_map(o, quiet), InputError);
  // A template without an ART beside it cannot be co-designed: a copy of the architecture alone.
  const auto tmp =
      std::filesystem::temp_directory_path() / ("sparsemap-run-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  std::filesystem::copy_file(eyeriss(), tmp / "arch.yaml");
  CodesignRunOptions c;
  c.hw = (tmp / "arch.yaml").string();
  c.area_budget_mm2 = 1;
  try {
    run_codesign(c, quiet);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected an ART"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(tmp);
  EXPECT_FALSE(is_arch_file(dir + "/layer_shapes/resnet18/00.yaml"));
  EXPECT_TRUE(is_arch_file(eyeriss()));
}

}  // namespace
}  // namespace sparsemap::dse::timeloop
