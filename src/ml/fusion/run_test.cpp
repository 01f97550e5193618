// ml::fusion::run, `sparsemap fuse-train` as a library call, on a tiny run: the numbers of
// `sparsemap fuse-train --models synth:1 --draws 1 --search-budget 40 --epochs 1 --threads 1
// --out F.pt --json -`, the progress it reports, its JSON, bad options as InputError and a stop
// asked by the observer as Cancelled.
#include "sparsemap/ml/fusion/run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "sparsemap/error.h"
#include "support/temp_dir.h"

namespace sparsemap::ml::fusion {
namespace {

Options tiny(const testing::TempDir& dir) {
  Options o;
  o.models = "synth:1";
  o.draws = 1;
  o.search_budget = 40;
  o.epochs = 1;
  o.threads = 1;
  o.out = (dir.path / "fuser.pt").string();
  return o;
}

struct Recorder : search::Observer {
  std::vector<search::Progress> seen;
  void on_progress(const search::Progress& p) override { seen.push_back(p); }
};

TEST(FuseTrainRun, TinyNumbers) {
  const testing::TempDir dir("fuse_train_run");
  Recorder obs;
  const Result r = run(tiny(dir), obs);
  EXPECT_EQ(r.report.trajectories, 1);
  EXPECT_EQ(r.report.parameters, 31664);
  EXPECT_EQ(r.report.epochs, 1);
  EXPECT_FALSE(r.report.resumed);
  EXPECT_NEAR(r.report.final_loss, 3.0842456817626953, 1e-6);
  EXPECT_NEAR(r.report.train_accuracy_pct, 100.0 / 29, 1e-9);  // 1 of the 29 actions
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path / "fuser.pt"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path / "fuser.bin"));
  // One trajectory (item 0), then one epoch (item 1) with its loss.
  ASSERT_EQ(obs.seen.size(), 2u);
  EXPECT_EQ(obs.seen[0].item, 0u);
  EXPECT_EQ(obs.seen[0].done, 1);
  EXPECT_EQ(obs.seen[0].total, 1);
  EXPECT_EQ(obs.seen[0].label, "synth-1 batch 64 buffer 128 KiB");
  EXPECT_EQ(obs.seen[1].item, 1u);
  EXPECT_EQ(obs.seen[1].done, 1);
  EXPECT_DOUBLE_EQ(obs.seen[1].best, r.report.final_loss);

  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["out"], (dir.path / "fuser.pt").string());
  EXPECT_EQ(j["trajectories"], 1);
  EXPECT_EQ(j["parameters"], 31664);
  EXPECT_EQ(j["resumed"], false);
}

TEST(FuseTrainRun, BadOptionIsInputError) {
  const testing::TempDir dir("fuse_train_run");
  search::Observer quiet;
  Options o = tiny(dir);
  o.expert = "foo";
  EXPECT_THROW(check_lists(o), InputError);
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny(dir);
  o.batches = "4,0";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny(dir);
  o.epochs = 0;
  EXPECT_NO_THROW(check_lists(o));  // a count: checked by run() after the CLI's --json
  EXPECT_THROW(run(o, quiet), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "fuser.pt"));
}

TEST(FuseTrainRun, CancelledByTheObserver) {
  const testing::TempDir dir("fuse_train_run");
  struct Stop : search::Observer {
    bool cancelled() override { return true; }
  } stop;
  EXPECT_THROW(run(tiny(dir), stop), search::Cancelled);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "fuser.pt"));
}

}  // namespace
}  // namespace sparsemap::ml::fusion
