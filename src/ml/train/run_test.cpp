// ml::train::run, `sparsemap train` as a library call, on a tiny synthetic run: the numbers of
// `sparsemap train --data synthetic --quick --steps 4 --batch 16 --train-limit 256 --test-limit 64
// --threads 1 --eval-every 2 --json -`, the progress and notes it reports, its JSON, a bad option
// as InputError and a stop asked by the observer as Cancelled.
#include "sparsemap/ml/train/run.h"

#include <gtest/gtest.h>

#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::ml::train {
namespace {

Options tiny() {
  Options o;
  o.data = "synthetic";
  o.quick = true;
  o.steps = 4;
  o.batch = 16;
  o.train_limit = 256;
  o.test_limit = 64;
  o.threads = 1;
  o.eval_every = 2;
  return o;
}

struct Recorder : search::Observer {
  std::vector<search::Progress> seen;
  std::vector<std::string> notes;
  void on_progress(const search::Progress& p) override { seen.push_back(p); }
  void on_note(const std::string& text) override { notes.push_back(text); }
};

TEST(TrainRun, TinySyntheticNumbers) {
  Recorder obs;
  const Result r = run(tiny(), obs);
  EXPECT_EQ(r.train.model, "vit-tiny");
  EXPECT_EQ(r.train.data, "synthetic");
  EXPECT_EQ(r.train.recipe, "srste");
  EXPECT_EQ(r.train.nm, "2:4");
  EXPECT_EQ(r.train.params, 19658);
  EXPECT_EQ(r.train.steps, 4);
  EXPECT_EQ(r.train.batch, 16);
  EXPECT_DOUBLE_EQ(r.train.metric, 15.625);  // 10 of 64 test images
  EXPECT_NEAR(r.train.train_loss, 2.2941646575927734, 1e-6);
  EXPECT_DOUBLE_EQ(r.train.training_flops, 90808320.0);
  EXPECT_DOUBLE_EQ(r.train.dense_flops, 130916352.0);
  EXPECT_TRUE(r.nm_exact);
  ASSERT_EQ(r.train.layers.size(), 8u);
  ASSERT_EQ(r.train.history.size(), 2u);
  EXPECT_DOUBLE_EQ(r.train.history[0].metric, 7.8125);
  // A report every step (4 steps: total / 200 rounds to 1), one note per evaluation but the last.
  ASSERT_EQ(obs.seen.size(), 4u);
  for (size_t i = 0; i < obs.seen.size(); ++i) {
    EXPECT_EQ(obs.seen[i].done, static_cast<int64_t>(i + 1));
    EXPECT_EQ(obs.seen[i].total, 4);
  }
  ASSERT_EQ(obs.notes.size(), 1u);
  EXPECT_EQ(obs.notes[0].rfind("[srste 2:4] step 2/4: train loss 2.3584, test 7.81%, ", 0), 0u)
      << obs.notes[0];

  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["command"], "train");
  EXPECT_EQ(j["seed"], 1);
  EXPECT_EQ(j["quick"], true);
  EXPECT_EQ(j["nm_exact"], true);
  EXPECT_TRUE(j["resumed_from_step"].is_null());
  EXPECT_DOUBLE_EQ(j["test_accuracy_pct"].get<double>(), 15.625);
  EXPECT_EQ(j["layers"].size(), 8u);
  EXPECT_EQ(j["history"][1]["step"], 4);
}

TEST(TrainRun, BadOptionIsInputError) {
  search::Observer quiet;
  Options o = tiny();
  o.recipe = "nope";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.batch = -1;
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.sequence = "2:4,x";
  EXPECT_THROW(run(o, quiet), InputError);
}

TEST(TrainRun, CancelledByTheObserver) {
  struct StopAtOnce : search::Observer {
    int polls = 0;
    bool cancelled() override { return ++polls >= 2; }
  } stop;
  EXPECT_THROW(run(tiny(), stop), search::Cancelled);
  EXPECT_EQ(stop.polls, 2);  // stopped after the second step
}

}  // namespace
}  // namespace sparsemap::ml::train
